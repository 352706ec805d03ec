/**
 * End-to-end with the built server: `initialize` is answered before the configuration is loaded
 * and the engine opened; the first request after the handshake opens it; and a configuration
 * that does not load ends the server with exit code 1 and the reason on stderr at that point,
 * after the error response to the request that needed it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import type { WireClient } from '../support/wire-client.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, stdioClient, type ServerProcess } from './support/server-process.js';

let model: ScriptedModelServer;
let temp: TempHome;
let server: ServerProcess | undefined;
let client: WireClient | undefined;

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
beforeEach(async () => {
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url);
});
afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
  await server?.stop();
  server = undefined;
  await model.close();
  await temp.cleanup();
});

describe('start-up', () => {
  it('answers initialize before opening the engine and opens it for the first request after the handshake', async () => {
    server = await spawnServer(temp, ['stdio://'], [], { DEPUTY_LOG: 'info' });
    client = stdioClient(server);
    expect(await client.initialize()).toMatchObject({ codexHome: temp.home });
    await client.waitForNotification('remoteControl/status/changed');
    expect(server.stderr()).toContain('client initialized');
    expect(server.stderr()).not.toContain('engine opened');
    const { thread } = await client.call<{ thread: { id: string } }>('thread/start', {});
    expect(thread.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.stderr()).toMatch(/engine opened \{"ms":\d+\}/);
  });

  it('ends with exit code 1 and the reason when the configuration does not load', async () => {
    await writeFile(path.join(temp.home, 'config.toml'), 'model = [broken\n');
    server = await spawnServer(temp, ['stdio://']);
    client = stdioClient(server);
    await client.initialize();
    const response = await client.request('thread/list', {});
    expect(response.error?.message).toContain('invalid TOML');
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.stderr()).toMatch(/deputy app-server: .*config\.toml:1:\d+: invalid TOML/);
  });
});
