/**
 * The approval matrix for patches, through real turns under a real workspace-write sandbox:
 * every policy × (a patch inside, a patch outside the writable roots) × every
 * answer where an approval is asked. The table and the checks live in `matrix.ts`.
 */
import { describeMatrix } from './matrix.js';

describeMatrix(['patch inside', 'patch outside']);
