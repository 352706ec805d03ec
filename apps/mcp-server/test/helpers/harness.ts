/**
 * Test harness for the built MCP server: a scripted model server, a temp Deputy home whose
 * config.toml points at it, and the environment to spawn the bundled `bundle/main.js` with. Each
 * test file shares one harness; every process it spawns is killed by its owner in `finally`.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempHome, startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';

/** The shared bounded poll, re-exported for the tests that import it from here. */
export { waitFor } from '@deputy/test-support';

/** The built server entry point. */
export const SERVER_MAIN = fileURLToPath(new URL('../../bundle/main.js', import.meta.url));

/** A model server plus a home configured to use it. */
export interface Harness {
  model: ScriptedModelServer;
  temp: TempHome;
  /** Environment for the server process (DEPUTY_HOME set, quiet logs). */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

/** Options of the harness. */
export interface HarnessOptions {
  /** Extra config.toml lines (after the provider table, so start them with a table header or keys of it). */
  extraToml?: string;
  /** Lines placed before the provider table (top-level keys). */
  topToml?: string;
}

/** Starts the model server and writes the config. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} is missing: run \`pnpm build\` first`);
  const model = await startScriptedModelServer();
  const temp = await makeTempHome('deputy-mcp-');
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    options.topToml ?? '',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${model.url}"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 20000',
    options.extraToml ?? '',
  ].join('\n');
  await writeFile(join(temp.home, 'config.toml'), toml);
  return {
    model,
    temp,
    env: (extra = {}) => ({
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: temp.home,
      DEPUTY_HOME: temp.home,
      DEPUTY_LOG: 'warn',
      ...extra,
    }),
    close: async () => {
      await model.close();
      await temp.cleanup();
    },
  };
}
