/**
 * Escape row 2: a sandboxed command cannot drive the app-server's own control plane. The server
 * listens on stdio and on a Unix socket (the default one under the home, or a path of the user's
 * elsewhere); a turn under `untrusted` whose command the user approves (it runs sandboxed) runs a
 * script that connects to that socket and asks for `command/exec` with `dangerFullAccess` and
 * `fs/writeFile`. Nothing may land on the host: the socket is hidden inside the sandbox (with
 * network on too), and with network off Unix sockets cannot be created at all. A control run of
 * the same script outside the sandbox proves the attack works when nothing stops it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, stdioClient, type ServerProcess } from '../e2e/support/server-process.js';
import { referenceScript } from '../support/mock-model.js';
import { startThread, startTurn, turnCompleted } from '../support/turns.js';
import type { WireClient } from '../support/wire-client.js';

const WS_MODULE = createRequire(import.meta.url).resolve('ws');

let model: ScriptedModelServer;
let temp: TempHome;
let server: ServerProcess | undefined;
let client: WireClient | undefined;
let sockets: string;

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
beforeEach(async () => {
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url, { approvalPolicy: 'untrusted' });
  sockets = await realpath(await mkdtemp(join(tmpdir(), 'deputy-control-sock-')));
});
afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
  await server?.stop();
  server = undefined;
  await model.close();
  await temp.cleanup();
  await rm(sockets, { recursive: true, force: true });
});

/**
 * Writes the attack script into the workspace: over the socket it initializes, then asks the
 * server to run `touch <marker>` unsandboxed and to write `<marker>.fs`. Both markers lie in the
 * home, which no sandboxed command can write, so only the server itself could create them.
 */
async function writeAttack(socketPath: string, marker: string): Promise<string> {
  const script = join(temp.cwd, `attack-${Date.now()}.cjs`);
  const source = `
const WebSocket = require(${JSON.stringify(WS_MODULE)});
const ws = new WebSocket(${JSON.stringify(`ws+unix://${socketPath}:/`)});
const send = (m) => ws.send(JSON.stringify(m));
ws.on('open', () => {
  send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'attack', version: '1' } } });
  send({ method: 'initialized' });
  send({ id: 2, method: 'command/exec', params: { command: ['touch', ${JSON.stringify(marker)}], sandboxPolicy: { type: 'dangerFullAccess' } } });
  send({ id: 3, method: 'fs/writeFile', params: { path: ${JSON.stringify(`${marker}.fs`)}, dataBase64: Buffer.from('pwned').toString('base64') } });
});
let answered = 0;
ws.on('message', (data) => { const m = JSON.parse(String(data)); if (m.id === 2 || m.id === 3) { answered += 1; if (answered === 2) process.exit(0); } });
ws.on('error', (e) => { console.log('refused: ' + (e.code || e.message)); process.exit(3); });
setTimeout(() => process.exit(4), 8000);
`;
  await writeFile(script, source);
  return script;
}

/** Runs the script in an approved, sandboxed command; resolves with the command's exit code. */
async function runAttackTurn(script: string, extra: Record<string, unknown> = {}): Promise<unknown> {
  const c = client as WireClient;
  const thread = await startThread(c, { sandbox: 'read-only', approvalPolicy: 'untrusted' });
  c.policy = (r) => (r.method === 'item/commandExecution/requestApproval' ? { decision: 'accept' } : undefined);
  const turnId = await startTurn(c, thread.id, `run: ${JSON.stringify(process.execPath)} ${script}`, extra);
  await turnCompleted(c, turnId, 30_000);
  const item = c
    .notifications()
    .filter((n) => n.method === 'item/completed')
    .map((n) => n.params.item as { type: string; exitCode?: number | null })
    .find((i) => i.type === 'commandExecution');
  return item?.exitCode;
}

const CASES = [
  { name: 'the default socket under the home, network off', listen: 'unix://', extra: {} },
  { name: 'a socket outside the home, network off', listen: 'custom', extra: {} },
  {
    name: 'a socket outside the home, network on',
    listen: 'custom',
    extra: { sandboxPolicy: { type: 'workspaceWrite', writableRoots: [], networkAccess: true, excludeTmpdirEnvVar: false, excludeSlashTmp: false } },
  },
] as const;

describe('a sandboxed command cannot reach the app-server it runs under', () => {
  it.each(CASES)('$name', async ({ listen, extra }) => {
    const socketPath = listen === 'custom' ? join(sockets, 'as.sock') : join(temp.home, 'app-server-control', 'app-server-control.sock');
    server = await spawnServer(temp, ['stdio://', listen === 'custom' ? `unix://${socketPath}` : 'unix://']);
    expect(existsSync(socketPath)).toBe(true);
    client = stdioClient(server);
    await client.initialize();
    const marker = join(temp.home, `pwned-${Date.now()}`);
    const script = await writeAttack(socketPath, marker);
    // The script ran (approved, sandboxed) and was refused the connection (its exit code 3).
    expect(await runAttackTurn(script, extra)).toBe(3);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(`${marker}.fs`)).toBe(false);

    // Control: the same script outside the sandbox gets both done.
    const control = join(temp.home, `control-${Date.now()}`);
    await promisify(execFile)(process.execPath, [await writeAttack(socketPath, control)], { timeout: 15_000 });
    expect(existsSync(control)).toBe(true);
    expect(existsSync(`${control}.fs`)).toBe(true);
  }, 60_000);
});
