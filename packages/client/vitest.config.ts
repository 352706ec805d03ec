import { deputyProject } from '../../vitest.shared.js';

export default deputyProject();
