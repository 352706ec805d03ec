/**
 * Sandbox escape suite against real bubblewrap: every way out (writes outside the workspace,
 * into `.git`, through a symlink, a TCP connection to the host, signalling a host process) must
 * fail under workspace-write and read-only and succeed under danger-full-access; secrets stay out
 * of the child environment; aborting a sandboxed command leaves nothing running.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxPolicy } from '@deputy/protocol';
import { buildChildEnv } from '../../src/exec/env.js';
import { ExecSessionManager } from '../../src/exec/exec-session.js';
import type { ExecSnapshot } from '../../src/exec/exec-session.js';
import { checkSandboxAvailable } from '../../src/exec/sandbox.js';
import { bashRequest, makeTempDir, testEnv, waitFor } from '../exec/helpers.js';

const WORKSPACE_WRITE: SandboxPolicy = {
  type: 'workspace-write',
  writableRoots: [],
  networkAccess: false,
  // The temp dirs of this suite live under /tmp, so /tmp itself must not be writable here.
  excludeTmpdirEnvVar: true,
  excludeSlashTmp: true,
};
const READ_ONLY: SandboxPolicy = { type: 'read-only', networkAccess: false };
const FULL_ACCESS: SandboxPolicy = { type: 'danger-full-access' };
const POLICIES = [
  { name: 'workspace-write', policy: WORKSPACE_WRITE },
  { name: 'read-only', policy: READ_ONLY },
  { name: 'danger-full-access', policy: FULL_ACCESS },
] as const;

let base: string;
let ws: string;
let outside: string;
let server: net.Server;
let port: number;
let connections = 0;
let manager: ExecSessionManager;
let counter = 0;

beforeAll(async () => {
  const availability = await checkSandboxAvailable();
  if (!availability.ok) throw new Error(`these tests need a working bwrap: ${availability.message}`);
  base = await makeTempDir('deputy-escape-');
  ws = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await fsp.mkdir(path.join(ws, '.git'), { recursive: true });
  await fsp.mkdir(outside);
  await fsp.symlink(outside, path.join(ws, 'link'));
  server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
  manager = new ExecSessionManager();
});

afterEach(async () => {
  await manager.killAll();
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (base !== undefined) await fsp.rm(base, { recursive: true, force: true });
});

/** Runs `script` with bash under `policy` in the workspace. */
function run(policy: SandboxPolicy, script: string, env = testEnv()): Promise<ExecSnapshot> {
  return manager.start(bashRequest(script, ws, { sandbox: policy, env, yieldTimeMs: 20_000 }));
}

/** A fresh file name, so no attempt can see another's result. */
function fresh(dir: string): string {
  counter += 1;
  return path.join(dir, `attempt-${counter}`);
}

describe.each(POLICIES)('under $name', ({ name, policy }) => {
  const confined = name !== 'danger-full-access';

  it(confined ? 'cannot write outside the workspace' : 'can write outside the workspace', async () => {
    const target = fresh(outside);
    const snapshot = await run(policy, `echo escaped > '${target}'`);
    expect(snapshot.exitCode === 0).toBe(!confined);
    expect(fs.existsSync(target)).toBe(!confined);
    if (confined) {
      expect(snapshot.output).toMatch(/Read-only file system/);
      expect(snapshot.sandboxDenied).toBe(true);
    }
  });

  it(confined ? 'cannot write into .git of the workspace' : 'can write into .git of the workspace', async () => {
    const target = fresh(path.join(ws, '.git'));
    const snapshot = await run(policy, `echo tampered > '${target}'`);
    expect(snapshot.exitCode === 0).toBe(!confined);
    expect(fs.existsSync(target)).toBe(!confined);
  });

  it(confined ? 'cannot write through a symlink that points outside' : 'can write through a symlink that points outside', async () => {
    const name = path.basename(fresh(outside));
    const snapshot = await run(policy, `echo via-link > link/${name}`);
    expect(snapshot.exitCode === 0).toBe(!confined);
    expect(fs.existsSync(path.join(outside, name))).toBe(!confined);
  });

  it(confined ? 'cannot connect to a listener on the host loopback' : 'can connect to a listener on the host loopback', async () => {
    const before = connections;
    const snapshot = await run(policy, `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`);
    expect(snapshot.exitCode === 0).toBe(!confined);
    expect(snapshot.output.includes('connected')).toBe(!confined);
    if (!confined) await waitFor(() => connections > before, 5_000, 'the server to see the connection');
    else expect(connections).toBe(before);
  });

  it(confined ? 'cannot signal a process outside the sandbox' : 'can signal a process outside the sandbox', async () => {
    const snapshot = await run(policy, `kill -0 ${process.pid} && echo reachable`);
    expect(snapshot.exitCode === 0).toBe(!confined);
  });

  it(name === 'read-only' ? 'cannot write inside the workspace' : 'can write inside the workspace', async () => {
    const target = fresh(ws);
    const snapshot = await run(policy, `echo inside > '${path.basename(target)}' && cat '${path.basename(target)}'`);
    const canWrite = name !== 'read-only';
    expect(snapshot.exitCode === 0).toBe(canWrite);
    expect(fs.existsSync(target)).toBe(canWrite);
    if (canWrite) expect(snapshot.output).toBe('inside\n');
  });

  it('keeps secret-looking variables out of the child environment by default', async () => {
    const env = buildChildEnv({ ...testEnv(), MY_API_KEY: 'sk-secret', VISIBLE: 'yes' });
    const snapshot = await run(policy, 'env', env);
    expect(snapshot.exitCode).toBe(0);
    expect(snapshot.output).toContain('VISIBLE=yes');
    expect(snapshot.output).not.toContain('MY_API_KEY');
    expect(snapshot.output).not.toContain('sk-secret');
  });
});

describe('sandboxed sessions', () => {
  it('run interactive commands on a terminal inside the sandbox', async () => {
    const first = await manager.start(bashRequest('read x; echo got:$x', ws, { sandbox: WORKSPACE_WRITE, tty: true, yieldTimeMs: 500 }));
    expect(first.sessionId).not.toBeNull();
    let output = first.output;
    let last = await manager.write(first.sessionId as number, 'carol\n', 10_000);
    output += last.output;
    while (last.sessionId !== null) {
      last = await manager.write(last.sessionId, '', 10_000);
      output += last.output;
    }
    expect(output).toMatch(/got:carol/);
    expect(last.exitCode).toBe(0);
  });

  it('leave no process behind when aborted', async () => {
    const marker = `${1000 + Math.floor(Math.random() * 1000)}.${process.pid}`;
    const isRunning = (): boolean =>
      fs.readdirSync('/proc').some((entry) => {
        if (!/^\d+$/.test(entry)) return false;
        try {
          const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
          const state = /\) (\S)/.exec(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))?.[1];
          return cmdline === `sleep\0${marker}\0` && state !== 'Z';
        } catch {
          return false;
        }
      });
    const controller = new AbortController();
    const first = await manager.start(
      bashRequest(`sleep ${marker} & wait`, ws, { sandbox: WORKSPACE_WRITE, signal: controller.signal, yieldTimeMs: 250 }),
    );
    expect(first.sessionId).not.toBeNull();
    await waitFor(isRunning, 10_000, 'the sandboxed sleep to start');
    controller.abort();
    const snapshot = await manager.write(first.sessionId as number, '', 10_000);
    expect(snapshot).toMatchObject({ sessionId: null, aborted: true });
    await waitFor(() => !isRunning(), 10_000, 'the sandboxed sleep to be gone');
  });
});
