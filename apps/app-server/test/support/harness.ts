/**
 * In-process harness for contract tests: a scripted model server, a temp home whose config.toml
 * points a `mock` provider at it, a real `DeputyAppServer` (real engine, rollouts and index) with
 * output validation on, and clients connected over in-memory transport pairs. Everything is
 * closed and removed by `close()`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { loadConfig } from '@deputy/engine';
import { createMemoryTransportPair } from '@deputy/rpc';
import { makeTempHome, startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { createLogger } from '../../src/logger.js';
import { DeputyAppServer } from '../../src/server.js';
import { testConfigToml, type HarnessOptions } from './config-toml.js';
import { referenceScript } from './mock-model.js';
import { WireClient } from './wire-client.js';
import { WireValidator } from './wire-validator.js';

export type { HarnessOptions };

/** A running harness. */
export interface Harness {
  model: ScriptedModelServer;
  temp: TempHome;
  server: DeputyAppServer;
  /** Shared by every client of the harness. */
  validator: WireValidator;
  /** Opens a client; initializes it unless `initialize: false`. */
  connect(options?: {
    initialize?: boolean;
    capabilities?: Record<string, unknown>;
    clientInfo?: { name: string; version: string };
    name?: string;
  }): Promise<WireClient>;
  close(): Promise<void>;
}

/** Starts a harness. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const validator = new WireValidator();
  const model = await startScriptedModelServer({ handler: options.handler ?? referenceScript, models: ['mock-model', 'gpt-5.2-codex', 'gpt-4.1'] });
  const temp = await makeTempHome('deputy-as-');
  await writeFile(join(temp.home, 'config.toml'), testConfigToml(model.url, options));
  for (const [name, content] of Object.entries(options.homeFiles ?? {})) await writeFile(join(temp.home, name), content);
  const config = await loadConfig({ home: temp.home, cwd: temp.cwd, overrides: options.overrides ?? [], env: {} });
  const server = await DeputyAppServer.start({
    config,
    cwd: temp.cwd,
    validateOutput: true,
    logger: createLogger('error'),
    outboundSoftLimit: options.outboundSoftLimit,
    outboundHardLimit: options.outboundHardLimit,
    outboundSoftBytes: options.outboundSoftBytes,
    outboundBudgetBytes: options.outboundBudgetBytes,
    idleThreadUnloadMs: options.idleThreadUnloadMs,
  });
  const clients: WireClient[] = [];
  return {
    model,
    temp,
    server,
    validator,
    async connect(connectOptions = {}) {
      const [serverSide, clientSide] = createMemoryTransportPair();
      server.accept(serverSide, 'memory');
      const client = new WireClient(clientSide, { validator, name: connectOptions.name ?? `client ${clients.length + 1}` });
      clients.push(client);
      if (connectOptions.initialize !== false) await client.initialize(connectOptions.capabilities ?? {}, connectOptions.clientInfo);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await server.close();
      await model.close();
      await temp.cleanup();
    },
  };
}

/**
 * Closes the harness's server and starts another on the same home (a restart), with one client
 * initialized with `capabilities` and checked by the harness's validator. `close()` closes both.
 */
export async function restartServer(h: Harness, capabilities: Record<string, unknown>): Promise<{ client: WireClient; close(): Promise<void> }> {
  await h.server.close();
  const config = await loadConfig({ home: h.temp.home, cwd: h.temp.cwd, env: {} });
  const server = await DeputyAppServer.start({ config, cwd: h.temp.cwd, validateOutput: true, logger: createLogger('error') });
  const [serverSide, clientSide] = createMemoryTransportPair();
  server.accept(serverSide, 'memory');
  const client = new WireClient(clientSide, { validator: h.validator, name: 'after restart' });
  const close = async (): Promise<void> => {
    await client.close().catch(() => undefined);
    await server.close();
  };
  try {
    await client.initialize(capabilities);
  } catch (error) {
    await close();
    throw error;
  }
  return { client, close };
}

/**
 * For a test file whose tests each start their own harness: returns `harness(options)`, which
 * starts one, and registers an `afterEach` that checks every message it carried and closes it.
 */
export function harnessPerTest(): (options?: HarnessOptions) => Promise<Harness> {
  let current: Harness | undefined;
  afterEach(async () => {
    const done = current;
    current = undefined;
    expect(done?.validator.problems ?? []).toEqual([]);
    await done?.close();
  });
  return async (options = {}) => (current = await startHarness(options));
}

/**
 * For a test file whose server must not see the host user's home: `HOME` points at an empty
 * directory while the file's tests run (`~/.agents/skills`, the login shell's start-up files),
 * and is restored and removed after.
 */
export function isolateUserHome(): void {
  const saved = process.env.HOME;
  let dir: string | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'deputy-user-home-'));
    process.env.HOME = dir;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.HOME;
    else process.env.HOME = saved;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
}
