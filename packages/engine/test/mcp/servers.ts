/**
 * What the MCP tests share: the real servers they run (the npm everything and filesystem servers,
 * the tiny fixture), an engine opener whose engines close after each test, and the output the
 * model read for a call.
 */
import { afterEach } from 'vitest';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestEngine, type TestEngine, type TestEngineOptions } from '../helpers/engine.js';

const require = createRequire(import.meta.url);

/** The script of an npm package's bin. */
function binOf(pkg: string, bin: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  return join(dirname(manifest), (require(manifest) as { bin: Record<string, string> }).bin[bin] ?? '');
}

export const everythingBin = binOf('@modelcontextprotocol/server-everything', 'mcp-server-everything');
export const filesystemBin = binOf('@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem');
export const tiny = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'tiny-server.mjs');
/** This node, quoted for TOML. */
export const node = JSON.stringify(process.execPath);

/**
 * Returns `open(servers, options, top)`: a test engine whose config.toml holds `top` and the
 * `[mcp_servers.*]` tables; every engine it opened is closed after each test.
 */
export function engineOpener(defaultTop = ''): (servers: string, options?: TestEngineOptions, top?: string) => Promise<TestEngine> {
  const engines: TestEngine[] = [];
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close();
  });
  return async (servers, options = {}, top = defaultTop) => {
    const engine = await startTestEngine({ ...options, extraToml: `${top}\n${servers}` });
    engines.push(engine);
    return engine;
  };
}

/** The `function_call_output.output` the model read for `callId`, if a request carried it. */
export function outputOf(engine: TestEngine, callId: string): unknown {
  for (const r of engine.server.requests) {
    const items = (r.body as { input?: { type: string; call_id?: string; output?: unknown }[] }).input ?? [];
    const found = items.find((i) => i.type === 'function_call_output' && i.call_id === callId);
    if (found) return found.output;
  }
  return undefined;
}
