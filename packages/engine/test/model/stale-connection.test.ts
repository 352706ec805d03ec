/**
 * A keep-alive connection the server closes at the moment it is reused: the model request that
 * meets it is sent again on a new connection even with `request_max_retries = 0`, and the turn
 * completes as if nothing happened. A real outage (nothing listening, or a server that closes
 * every connection, fresh ones included) still fails the turn with a message naming the cause.
 * The server in front of the scripted model is a TCP relay on 127.0.0.1 that sees each
 * connection's bytes, so "reused" is what the wire says, not what the client believes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, Socket, type Server } from 'node:net';
import { functionCall, functionOutputs, makeTempHome, startScriptedModelServer, text, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { closedPort, collect, openOnConfig } from '../helpers/engine.js';
import type { ThreadManager } from '../../src/thread/thread-manager.js';
import { ofType } from '../thread/support.js';

/** When the relay cuts a client connection: at its second request, or at its first. */
type CutAt = 'reuse' | 'every-request';

/** A TCP relay to `port` that cuts client connections (FIN or RST) as a request arrives on them. */
interface CuttingRelay {
  port: number;
  connections: number;
  cuts: number;
  close(): Promise<void>;
}

async function startCuttingRelay(port: number, cutAt: CutAt, how: 'close' | 'reset'): Promise<CuttingRelay> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): Socket => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    return socket;
  };
  const relay: CuttingRelay = { port: 0, connections: 0, cuts: 0, close: async () => undefined };
  const server: Server = createServer((client) => {
    relay.connections += 1;
    track(client);
    const upstream = track(new Socket());
    upstream.connect(port, '127.0.0.1');
    let answered = false;
    const cut = (): void => {
      relay.cuts += 1;
      if (how === 'reset') client.resetAndDestroy();
      else client.destroy();
      upstream.destroy();
    };
    upstream.on('data', (chunk: Buffer) => {
      answered = true;
      client.write(chunk);
    });
    upstream.on('close', () => client.end());
    client.on('data', (chunk: Buffer) => {
      // A request arriving after a response went out is the connection being reused.
      if (cutAt === 'every-request' || answered) return cut();
      upstream.write(chunk);
    });
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.port = (server.address() as { port: number }).port;
  relay.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return relay;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A home whose provider is `http://127.0.0.1:PORT/v1` with no retries at all, and its manager. */
async function engineOn(port: number): Promise<{ manager: ThreadManager; temp: TempHome }> {
  const temp = await makeTempHome();
  cleanups.push(() => temp.cleanup());
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "http://127.0.0.1:${port}/v1"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 5000',
  ];
  const { manager } = await openOnConfig(temp, toml);
  cleanups.push(() => manager.close());
  return { manager, temp };
}

async function scriptedModel(): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer();
  cleanups.push(() => server.close());
  return server;
}

describe('a keep-alive connection closed by the server as it is reused', () => {
  // The command runs without a login shell so the connection is reused well inside the client's
  // 4 s idle limit even on a loaded machine (otherwise there would be no reuse to cut).
  it.each(['close', 'reset'] as const)('is retried on a new connection and the one-command turn completes (%s)', async (how) => {
    const model = await scriptedModel();
    model.enqueue({ output: [functionCall('exec_command', { cmd: 'echo through-a-fresh-connection', login: false })] }, { output: [text('done')] });
    const relay = await startCuttingRelay(model.port, 'reuse', how);
    cleanups.push(() => relay.close());
    const { manager, temp } = await engineOn(relay.port);

    const thread = await manager.start({ cwd: temp.cwd });
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'run it' }]).done;

    expect(turn.error).toBeNull();
    expect(turn.status).toBe('completed');
    expect(turn.lastAgentMessage).toBe('done');
    // The second model request met the reused connection, which the relay cut; it reached the
    // model once, on a second connection, and the turn saw no error at all.
    expect(relay.cuts).toBe(1);
    expect(relay.connections).toBe(2);
    expect(model.requests).toHaveLength(2);
    expect(functionOutputs(model.requests[1]!)[0]?.output).toContain('through-a-fresh-connection');
    expect(ofType(events, 'error')).toEqual([]);
  });
});

describe('a real outage', () => {
  it('fails the turn with the cause when nothing listens', async () => {
    const port = await closedPort();
    const { manager, temp } = await engineOn(port);
    const thread = await manager.start({ cwd: temp.cwd });
    const turn = await thread.startTurn([{ type: 'text', text: 'hello?' }]).done;
    expect(turn.status).toBe('failed');
    expect(turn.error).toMatchObject({ code: 'connectionFailed', message: `Could not reach the model provider: connect ECONNREFUSED 127.0.0.1:${port}.` });
  });

  it('is not retried when the server closes fresh connections too', async () => {
    const model = await scriptedModel();
    const relay = await startCuttingRelay(model.port, 'every-request', 'close');
    cleanups.push(() => relay.close());
    const { manager, temp } = await engineOn(relay.port);
    const thread = await manager.start({ cwd: temp.cwd });
    const turn = await thread.startTurn([{ type: 'text', text: 'hello?' }]).done;
    expect(turn.status).toBe('failed');
    expect(turn.error).toMatchObject({ code: 'connectionFailed', message: 'Could not reach the model provider: other side closed.' });
    expect(relay.connections).toBe(1);
    expect(model.requests).toHaveLength(0);
  });
});
