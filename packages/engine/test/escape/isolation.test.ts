/**
 * Escape rows 1, 2, 3 and 8, through real turns under real bubblewrap, judged on the host:
 * - root (or any user) keeps no capability inside the sandbox: no remount of `/`, no mount, no
 *   `nsenter` into the host's namespaces, no nested user namespace to regain them;
 * - with network off, a Unix socket bound to a path on the host (a control socket, a tmux server,
 *   an agent) cannot be connected to, and `SSH_AUTH_SOCK` is not passed on;
 * - Deputy's home (auth.json, sessions) and any path the front door hides (a control socket, a
 *   token file) are invisible to commands even with network on.
 * Each attack has a control run outside the sandbox where that proves the attack itself works.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxPolicy } from '@deputy/protocol';
import { waitFor } from '../helpers/engine.js';
import { CONFINED_TMP_TOML, execCall, requireBwrap, SafetyHarness, WORKSPACE_WRITE } from '../safety/harness.js';

const NETWORK_ON: SandboxPolicy & { type: 'workspace-write' } = { ...WORKSPACE_WRITE, networkAccess: true };
type ConfinedPolicy = Exclude<SandboxPolicy, { type: 'danger-full-access' }>;
const CONFINED: { name: string; policy: ConfinedPolicy }[] = [
  { name: 'workspace-write', policy: WORKSPACE_WRITE },
  { name: 'read-only', policy: { type: 'read-only', networkAccess: false } },
  { name: 'workspace-write with network', policy: NETWORK_ON },
];

let h: SafetyHarness;
/** A private directory outside every workspace and outside the home, for sockets. */
let sockets: string;
let tcp: net.Server;
let tcpPort = 0;
let tcpConnections = 0;

beforeAll(async () => {
  await requireBwrap();
  h = await SafetyHarness.start({ sandbox: 'workspace-write', extraToml: CONFINED_TMP_TOML });
  sockets = await realpath(await mkdtemp(join(tmpdir(), 'deputy-escape-sock-')));
  tcp = net.createServer((socket) => {
    tcpConnections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  tcpPort = (tcp.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (tcp ? tcp.close(() => resolve()) : resolve()));
  await h?.close();
  if (sockets !== undefined) await rm(sockets, { recursive: true, force: true });
});

/** Runs `cmd` (bash, no login) in a fresh thread under `policy` with approval policy never. */
async function runSandboxed(policy: SandboxPolicy, cmd: string): Promise<string> {
  const thread = await h.startThread({ approvalPolicy: 'never', sandbox: policy });
  await h.runTurn(thread, [execCall(cmd)]);
  return thread.settings.cwd;
}

/** A Unix socket server on the host that counts connections. */
async function unixServer(name: string): Promise<{ path: string; connections: () => number; close: () => Promise<void> }> {
  const path = join(sockets, name);
  let count = 0;
  const server = net.createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, connections: () => count, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A node one-liner that connects to a Unix socket and writes what happened to `report`. */
function connectScript(socketPath: string, report: string): string {
  const js = `require("net").connect(${JSON.stringify(socketPath)}).on("connect",()=>{require("fs").writeFileSync(${JSON.stringify(report)},"connected");process.exit(0)}).on("error",(e)=>{require("fs").writeFileSync(${JSON.stringify(report)},e.code||String(e));process.exit(3)})`;
  return `${JSON.stringify(process.execPath)} -e '${js}'`;
}

describe('row 1: no capabilities inside the sandbox, whoever runs Deputy', () => {
  it.each(CONFINED)('$name: remounting / read-write and writing outside fails', async ({ policy }) => {
    const target = join(h.outside, `remount-${h.nextId()}`);
    await runSandboxed(policy, `mount -o remount,rw / ; mount -o remount,rw,bind / ; touch ${target}; true`);
    expect(existsSync(target)).toBe(false);
  });

  it.each(CONFINED)('$name: a new mount over a read-only path cannot make it writable', async ({ policy }) => {
    const target = join(h.outside, `mount-${h.nextId()}`);
    await mkdir(target);
    await runSandboxed(policy, `mount -t tmpfs none ${target}; unshare -rm sh -c 'mount -o remount,rw / ; touch ${target}/x'; touch ${target}/y; true`);
    expect(existsSync(join(target, 'x'))).toBe(false);
    expect(existsSync(join(target, 'y'))).toBe(false);
  });

  it.each(CONFINED.filter((c) => !c.policy.networkAccess))('$name: nsenter into the host network namespace does not reach a host listener', async ({ policy }) => {
    const before = tcpConnections;
    await runSandboxed(
      policy,
      // Unmounting the sandbox's /proc uncovers the host's; any host process's network namespace
      // then leads out (this is how the probe got out as root).
      `umount -l /proc; for p in /proc/[0-9]*; do nsenter --net=$p/ns/net -- bash -c 'echo x > /dev/tcp/127.0.0.1/${tcpPort}' 2>/dev/null && break; done; bash -c 'echo x > /dev/tcp/127.0.0.1/${tcpPort}'; true`,
    );
    expect(tcpConnections).toBe(before);
  });

  it('the command runs with no effective capability and no_new_privs (read on the host from its report)', async () => {
    const report = `status-${h.nextId()}.txt`;
    const cwd = await runSandboxed(WORKSPACE_WRITE, `grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status > ${report}`);
    const status = await readFile(join(cwd, report), 'utf8');
    expect(status).toMatch(/CapEff:\s+0+\n/);
    expect(status).toMatch(/CapPrm:\s+0+\n/);
    expect(status).toMatch(/CapBnd:\s+0+\n/);
    expect(status).toMatch(/NoNewPrivs:\s+1/);
  });
});

describe('row 3: filesystem Unix sockets with network off', () => {
  it.each(CONFINED.filter((c) => !c.policy.networkAccess))('$name: a host Unix socket cannot be connected to', async ({ policy }) => {
    const server = await unixServer(`s-${h.nextId()}.sock`);
    try {
      const report = join(h.outside, `report-${h.nextId()}`);
      // The report goes to a path the sandbox cannot write, so only the host-side count decides.
      await runSandboxed(policy, `${connectScript(server.path, report)}; true`);
      expect(server.connections()).toBe(0);
      // Control: the same script outside the sandbox connects.
      spawnSync('/bin/bash', ['-c', connectScript(server.path, report)], { timeout: 10_000 });
      await waitFor(() => server.connections() === 1, 5_000, 'the control connection');
    } finally {
      await server.close();
    }
  });

  it('a tmux server of the same user cannot be driven from the sandbox', async () => {
    const socketPath = join(sockets, `tmux-${h.nextId()}`);
    const started = spawnSync('tmux', ['-S', socketPath, '-f', '/dev/null', 'new-session', '-d', '-s', 'escape', 'sleep 60'], { timeout: 10_000 });
    expect(started.status, String(started.stderr)).toBe(0);
    try {
      const pwned = join(h.outside, `tmux-pwned-${h.nextId()}`);
      const control = join(h.outside, `tmux-control-${h.nextId()}`);
      await runSandboxed(WORKSPACE_WRITE, `tmux -S ${socketPath} new-window 'touch ${pwned}'; true`);
      // tmux runs windows in order: once the control window's file exists, an earlier one would too.
      spawnSync('tmux', ['-S', socketPath, 'new-window', `touch ${control}`], { timeout: 10_000 });
      await waitFor(() => existsSync(control), 10_000, 'the control window');
      expect(existsSync(pwned)).toBe(false);
    } finally {
      spawnSync('tmux', ['-S', socketPath, 'kill-server'], { timeout: 10_000 });
    }
  });

  it('SSH_AUTH_SOCK is not passed to commands (network on too)', async () => {
    const agent = await unixServer(`agent-${h.nextId()}.sock`);
    const previous = process.env.SSH_AUTH_SOCK;
    process.env.SSH_AUTH_SOCK = agent.path;
    try {
      const report = `agent-${h.nextId()}.txt`;
      const cwd = await runSandboxed(NETWORK_ON, `printf '%s' "\${SSH_AUTH_SOCK-unset}" > ${report}`);
      expect(readFileSync(join(cwd, report), 'utf8')).toBe('unset');
    } finally {
      if (previous === undefined) delete process.env.SSH_AUTH_SOCK;
      else process.env.SSH_AUTH_SOCK = previous;
      await agent.close();
    }
  });
});

describe("rows 2 and 8: Deputy's home and the front door's secrets are hidden", () => {
  it.each(CONFINED)("$name: auth.json, the sessions and the rules cannot be read or listed", async ({ policy }) => {
    const home = h.engine.temp.home;
    const secret = `sk-escape-${h.nextId()}-${Date.now()}`;
    await writeFile(join(home, 'auth.json'), JSON.stringify({ OPENAI_API_KEY: secret }), { mode: 0o600 });
    const stolen = join(h.outside, `stolen-${h.nextId()}`);
    // Read in the sandbox, then handed to the host over a TCP listener when the network is on,
    // and written inside the workspace otherwise: the host reads both.
    const report = `home-${h.nextId()}.txt`;
    const cwd = await runSandboxed(policy, `{ cat ${home}/auth.json; ls -laR ${home}; } > ${report} 2>&1; cp ${report} ${stolen} 2>/dev/null; true`);
    const seen = existsSync(join(cwd, report)) ? await readFile(join(cwd, report), 'utf8') : '';
    expect(seen).not.toContain(secret);
    expect(seen).not.toContain('sessions');
    expect(seen).not.toContain('config.toml');
    expect(existsSync(stolen)).toBe(false);
  });

  it('a hidden token file elsewhere reads as empty, and a hidden control socket cannot be reached with network on', async () => {
    const tokenFile = join(sockets, `token-${h.nextId()}`);
    const token = `tok-${Date.now()}`;
    await writeFile(tokenFile, token, { mode: 0o600 });
    const control = await unixServer(`control-${h.nextId()}.sock`);
    h.engine.runtime.hideFromSandbox(tokenFile, control.path);
    try {
      const report = `secrets-${h.nextId()}.txt`;
      const cwd = await runSandboxed(NETWORK_ON, `{ cat ${tokenFile}; ${connectScript(control.path, join(sockets, 'never-written'))}; } > ${report} 2>&1; true`);
      expect(await readFile(join(cwd, report), 'utf8')).not.toContain(token);
      expect(control.connections()).toBe(0);
    } finally {
      await control.close();
    }
  });

  it('a configured writable root inside the home keeps it visible (the user chose it)', async () => {
    const inside = join(h.engine.temp.home, `chosen-${h.nextId()}`);
    await mkdir(inside);
    const thread = await h.startThread({ approvalPolicy: 'never', sandbox: { ...WORKSPACE_WRITE, writableRoots: [inside] } });
    await h.runTurn(thread, [execCall(`echo ok > ${inside}/written`)]);
    expect(existsSync(join(inside, 'written'))).toBe(true);
  });
});

describe('the seccomp filter leaves ordinary tools working', () => {
  it('pipes, socketpairs and loopback TCP inside the sandbox still work with network off', async () => {
    const report = `ok-${h.nextId()}.txt`;
    const js = [
      'const net=require("net");const {spawnSync}=require("child_process");',
      'const r=spawnSync("echo",["child"],{encoding:"utf8"});',
      'const s=net.createServer(c=>c.end("pong")).listen(0,"127.0.0.1",()=>{',
      'net.connect(s.address().port,"127.0.0.1").on("data",d=>{require("fs").writeFileSync(process.argv[1],r.stdout.trim()+" "+d);process.exit(0)})});',
    ].join('');
    const cwd = await runSandboxed(WORKSPACE_WRITE, `${JSON.stringify(process.execPath)} -e '${js}' ${report} && ls /proc/self/fd | wc -l >> ${report}`);
    const text = await readFile(join(cwd, report), 'utf8');
    expect(text.startsWith('child pong')).toBe(true);
  });
});

