/**
 * What the app-server says about itself before the engine is loaded: the Deputy home of an
 * environment and the version in the `initialize` user agent and `--version`. Both follow the
 * engine (`resolveHome`, `DEPUTY_VERSION`), but importing `@deputy/engine` for them would load the
 * whole engine (openai, SQLite, the tools) before the first response, so this module restates the
 * home rule and reads the version from this package; a test keeps both equal to the engine's.
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** The version reported to clients: this package's, kept equal to the engine's `DEPUTY_VERSION`. */
export const APP_SERVER_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/** The Deputy home for `env`: `DEPUTY_HOME` (made absolute) or `<HOME>/.deputy`, as the engine has it. */
export function deputyHomeOf(env: NodeJS.ProcessEnv): string {
  const explicit = env.DEPUTY_HOME;
  if (explicit !== undefined && explicit.trim() !== '') return path.resolve(explicit);
  const userHome = env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
  return path.join(userHome, '.deputy');
}
