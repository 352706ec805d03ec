/**
 * The sandbox policy as bwrap arguments, the writable-path rules for in-process writers, the
 * denial heuristic, and the refusal to run sandboxed commands without bwrap.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxPolicy } from '@deputy/protocol';
import { SandboxUnavailableError } from '../../src/exec/errors.js';
import { ExecSessionManager } from '../../src/exec/exec-session.js';
import {
  buildSandboxedArgv,
  checkSandboxAvailable,
  findBwrap,
  isWritablePath,
  looksLikeSandboxDenial,
  resolveWritableRoots,
} from '../../src/exec/sandbox.js';
import { networkOffFilter } from '../../src/exec/seccomp.js';
import { bashRequest, makeTempDir } from './helpers.js';

let base: string;
let ws: string;
let extra: string;
let outside: string;

const workspaceWrite = (overrides: Partial<Extract<SandboxPolicy, { type: 'workspace-write' }>> = {}): SandboxPolicy => ({
  type: 'workspace-write',
  writableRoots: [],
  networkAccess: false,
  excludeTmpdirEnvVar: true,
  excludeSlashTmp: true,
  ...overrides,
});

beforeAll(async () => {
  base = await makeTempDir('deputy-sandbox-policy-');
  ws = path.join(base, 'ws');
  extra = path.join(base, 'extra');
  outside = path.join(base, 'outside');
  for (const dir of [ws, extra, outside, path.join(ws, '.git'), path.join(ws, '.codex'), path.join(extra, '.deputy')]) {
    await fs.mkdir(dir, { recursive: true });
  }
  await fs.symlink(outside, path.join(ws, 'escape'));
  await fs.symlink(ws, path.join(base, 'ws-link'));
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/** The value following each occurrence of `flag` (pairs for two-operand flags). */
function operands(argv: string[], flag: string): string[] {
  return argv.flatMap((arg, i) => (arg === flag ? [argv[i + 1] as string] : []));
}

describe('buildSandboxedArgv', () => {
  it('leaves the argv alone for danger-full-access', () => {
    expect(buildSandboxedArgv(['ls', '-l'], { type: 'danger-full-access' }, { cwd: ws, env: {} })).toEqual(['ls', '-l']);
  });

  it('binds everything read-only with private namespaces for read-only', () => {
    const argv = buildSandboxedArgv(['ls'], { type: 'read-only', networkAccess: false }, { cwd: ws, env: {}, bwrapPath: '/usr/bin/bwrap' });
    // Network off: a /bin/sh wrapper hands bwrap the seccomp program on fd 3.
    const bwrapAt = argv.indexOf('/usr/bin/bwrap');
    expect(argv.slice(0, bwrapAt)).toEqual(['/bin/sh', '-c', 'exec "$@" 3<"$0"', expect.stringMatching(/network-off-[\w-]+\.bpf$/)]);
    expect(argv.slice(bwrapAt, bwrapAt + 3)).toEqual(['/usr/bin/bwrap', '--new-session', '--die-with-parent']);
    expect(argv.join(' ')).toContain('--ro-bind / / --dev /dev');
    for (const flag of ['--unshare-user', '--disable-userns', '--unshare-pid', '--unshare-ipc', '--unshare-net']) expect(argv).toContain(flag);
    expect(operands(argv, '--cap-drop')).toEqual(['ALL']);
    expect(operands(argv, '--seccomp')).toEqual(['3']);
    expect(operands(argv, '--proc')).toEqual(['/proc']);
    expect(operands(argv, '--bind')).toEqual([]);
    expect(operands(argv, '--chdir')).toEqual([ws]);
    expect(argv.slice(-2)).toEqual(['--', 'ls']);
  });

  it('keeps the network when a read-only policy allows it', () => {
    const argv = buildSandboxedArgv(['ls'], { type: 'read-only', networkAccess: true }, { cwd: ws, env: {} });
    expect(argv).not.toContain('--unshare-net');
  });

  it('binds the writable roots and re-binds protected directories read-only after them', () => {
    const policy = workspaceWrite({ writableRoots: [extra, path.join(base, 'missing')], networkAccess: true });
    const argv = buildSandboxedArgv(['true'], policy, { cwd: path.join(base, 'ws-link'), env: {} });
    expect(operands(argv, '--bind')).toEqual([ws, extra]);
    const roBinds = operands(argv, '--ro-bind');
    expect(roBinds).toEqual(['/', path.join(extra, '.deputy'), path.join(ws, '.codex'), path.join(ws, '.git')]);
    const lastBind = argv.lastIndexOf('--bind');
    expect(argv.indexOf(`${ws}/.git`)).toBeGreaterThan(lastBind);
    expect(argv).not.toContain('--unshare-net');
    expect(operands(argv, '--chdir')).toEqual([ws]);
  });

  it('adds $TMPDIR and /tmp unless the policy excludes them', () => {
    const policy = workspaceWrite({ excludeTmpdirEnvVar: false, excludeSlashTmp: false });
    const binds = operands(buildSandboxedArgv(['true'], policy, { cwd: ws, env: { TMPDIR: extra } }), '--bind');
    expect(binds).toEqual([ws, extra, '/tmp']);
    const none = resolveWritableRoots(workspaceWrite(), ws, { TMPDIR: extra }).map((r) => r.root);
    expect(none).toEqual([ws]);
  });
});

describe('buildSandboxedArgv: hidden paths, the turn cwd and the seccomp filter', () => {
  const isolation = { userNamespace: true, disableNestedUserns: true, seccompFile: null };

  it('masks a hidden directory with a tmpfs made read-only after the roots inside it are bound again, and a hidden file with /dev/null', async () => {
    const home = path.join(base, 'hidden-home');
    const inner = path.join(home, 'worktree');
    const token = path.join(base, 'token-file');
    await fs.mkdir(inner, { recursive: true });
    await fs.writeFile(token, 'secret');
    const argv = buildSandboxedArgv(['ls'], workspaceWrite(), { cwd: inner, env: {}, hiddenPaths: [home, token, path.join(base, 'missing')], isolation });
    const joined = argv.join(' ');
    expect(joined).toContain(`--tmpfs ${home}`);
    expect(joined).toContain(`--ro-bind /dev/null ${token}`);
    expect(joined).not.toContain('missing');
    // The workspace inside the hidden home is bound again, then the tmpfs becomes read-only.
    const rebind = argv.lastIndexOf(inner, argv.indexOf(`--remount-ro`));
    expect(rebind).toBeGreaterThan(argv.indexOf('--tmpfs'));
    expect(operands(argv, '--remount-ro')).toEqual([home]);
  });

  it('leaves a hidden path visible when it lies inside a configured writable root, but not inside the cwd or /tmp', () => {
    const inWs = path.join(ws, '.codex');
    const chosen = buildSandboxedArgv(['ls'], workspaceWrite({ writableRoots: [extra] }), { cwd: ws, env: {}, hiddenPaths: [path.join(extra, '.deputy'), inWs], isolation });
    expect(operands(chosen, '--tmpfs')).toEqual([inWs]);
    // A protected entry inside a hidden path is not bound again (that would show it).
    expect(operands(chosen, '--ro-bind')).not.toContain(inWs);
  });

  it('takes the writable roots from the turn cwd, not from the command directory', () => {
    const argv = buildSandboxedArgv(['ls'], workspaceWrite(), { cwd: outside, workspace: ws, env: {}, isolation });
    expect(operands(argv, '--bind')).toEqual([ws]);
    expect(operands(argv, '--chdir')).toEqual([outside]);
  });

  it('drops the user namespace flags the probe found unsupported, never the capability drop', () => {
    const argv = buildSandboxedArgv(['ls'], workspaceWrite(), { cwd: ws, env: {}, isolation: { userNamespace: false, disableNestedUserns: false, seccompFile: null } });
    expect(argv).not.toContain('--unshare-user');
    expect(operands(argv, '--cap-drop')).toEqual(['ALL']);
    expect(argv[0]).toBe('bwrap');
  });

  it('loads the seccomp filter only when the network is off', () => {
    const filter = { ...isolation, seccompFile: '/nonexistent/deputy-seccomp/network-off-x64.bpf' };
    const off = buildSandboxedArgv(['ls'], workspaceWrite(), { cwd: ws, env: {}, isolation: filter });
    expect(off.slice(0, 4)).toEqual(['/bin/sh', '-c', 'exec "$@" 3<"$0"', filter.seccompFile]);
    expect(operands(off, '--seccomp')).toEqual(['3']);
    const on = buildSandboxedArgv(['ls'], workspaceWrite({ networkAccess: true }), { cwd: ws, env: {}, isolation: filter });
    expect(on[0]).toBe('bwrap');
    expect(on).not.toContain('--seccomp');
  });
});

describe('networkOffFilter', () => {
  it('is a BPF program per known architecture, checking the architecture first, and null elsewhere', () => {
    for (const [arch, audit] of [['x64', 0xc000003e], ['arm64', 0xc00000b7]] as const) {
      const program = networkOffFilter(arch);
      expect(program).not.toBeNull();
      const bytes = program as Buffer;
      expect(bytes.length % 8).toBe(0);
      // ld [4] (arch), then jeq AUDIT_ARCH.
      expect(bytes.readUInt16LE(0)).toBe(0x20);
      expect(bytes.readUInt32LE(4)).toBe(4);
      expect(bytes.readUInt32LE(12)).toBe(audit);
      // Ends with allow, deny(EPERM).
      expect(bytes.readUInt32LE(bytes.length - 12)).toBe(0x7fff0000);
      expect(bytes.readUInt32LE(bytes.length - 4)).toBe(0x00050001);
    }
    expect(networkOffFilter('ia32')).toBeNull();
  });
});

describe('isWritablePath', () => {
  let policy: SandboxPolicy;
  beforeAll(() => {
    policy = workspaceWrite({ writableRoots: [extra] });
  });

  it('allows paths inside the cwd and the writable roots, including files that do not exist yet', () => {
    expect(isWritablePath(path.join(ws, 'src/new/file.ts'), policy, ws)).toBe(true);
    expect(isWritablePath(path.join(extra, 'x.txt'), policy, ws)).toBe(true);
    expect(isWritablePath('relative/file.txt', policy, ws)).toBe(true);
  });

  it('refuses paths outside the roots, including through symlinks and ..', () => {
    expect(isWritablePath(path.join(outside, 'x'), policy, ws)).toBe(false);
    expect(isWritablePath(path.join(ws, 'escape', 'x'), policy, ws)).toBe(false);
    expect(isWritablePath(path.join(ws, '..', 'outside', 'x'), policy, ws)).toBe(false);
  });

  it('refuses the protected directories at the top of each root, existing or not', () => {
    expect(isWritablePath(path.join(ws, '.git', 'config'), policy, ws)).toBe(false);
    expect(isWritablePath(path.join(ws, '.codex', 'x'), policy, ws)).toBe(false);
    expect(isWritablePath(path.join(extra, '.deputy', 'x'), policy, ws)).toBe(false);
    expect(isWritablePath(path.join(extra, '.git', 'HEAD'), policy, ws)).toBe(false);
    expect(isWritablePath(path.join(ws, 'sub', '.git', 'x'), policy, ws)).toBe(true);
  });

  it('follows the other policies: everything for danger-full-access, nothing for read-only', () => {
    expect(isWritablePath(path.join(outside, 'x'), { type: 'danger-full-access' }, ws)).toBe(true);
    expect(isWritablePath(path.join(ws, 'x'), { type: 'read-only', networkAccess: false }, ws)).toBe(false);
  });
});

describe('looksLikeSandboxDenial', () => {
  it('flags failed commands whose output reads like a refusal', () => {
    expect(looksLikeSandboxDenial({ exitCode: 1, output: "touch: cannot touch 'x': Read-only file system" })).toBe(true);
    expect(looksLikeSandboxDenial({ exitCode: 6, output: 'curl: (6) Could not resolve host: example.com' })).toBe(true);
    expect(looksLikeSandboxDenial({ exitCode: 1, output: 'connect: Network is unreachable' })).toBe(true);
    expect(looksLikeSandboxDenial({ exitCode: 1, output: 'PERMISSION DENIED' })).toBe(true);
  });

  it('ignores successes, signals and ordinary failures', () => {
    expect(looksLikeSandboxDenial({ exitCode: 0, output: 'Permission denied' })).toBe(false);
    expect(looksLikeSandboxDenial({ exitCode: null, output: 'Permission denied' })).toBe(false);
    expect(looksLikeSandboxDenial({ exitCode: 1, output: 'No such file or directory' })).toBe(false);
  });
});

describe('when bwrap is missing', () => {
  it('reports it as unavailable', async () => {
    expect(findBwrap({ pathEnv: base })).toBeNull();
    const result = await checkSandboxAvailable({ pathEnv: base });
    expect(result).toEqual({ ok: false, message: 'bubblewrap (bwrap) was not found on PATH' });
    const explicit = await checkSandboxAvailable({ bwrapPath: path.join(base, 'bwrap') });
    expect(explicit.ok).toBe(false);
  });

  it('refuses to run a sandboxed command and never runs it unsandboxed', async () => {
    const manager = new ExecSessionManager({ pathEnv: base });
    const marker = path.join(ws, 'ran-anyway');
    for (const sandbox of [workspaceWrite(), { type: 'read-only', networkAccess: false } as const]) {
      const attempt = manager.start(bashRequest(`touch ${marker}`, ws, { sandbox }));
      await expect(attempt).rejects.toBeInstanceOf(SandboxUnavailableError);
      await expect(attempt).rejects.toThrow(/bwrap\) was not found on PATH\. Install it with: apt-get install bubblewrap$/);
    }
    await expect(fs.access(marker)).rejects.toThrow();
    expect(manager.sessionIds).toEqual([]);
  });

  it('explains why a bwrap that cannot create namespaces is unusable', async () => {
    const fakeDir = path.join(base, 'fake-bin');
    await fs.mkdir(fakeDir, { recursive: true });
    const fake = path.join(fakeDir, 'bwrap');
    await fs.writeFile(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });
    const result = await checkSandboxAvailable({ pathEnv: fakeDir });
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.message).toMatch(/cannot create the sandbox namespaces \(probe exited with code 1: bwrap: No permissions/);
    const manager = new ExecSessionManager({ bwrapPath: fake });
    await expect(manager.start(bashRequest('true', ws, { sandbox: workspaceWrite() }))).rejects.toThrow(
      /^Sandbox unavailable: .*No permissions to create new namespace\)\. Install it with: apt-get install bubblewrap$/,
    );
  });

  it('still runs danger-full-access commands', async () => {
    const manager = new ExecSessionManager({ bwrapPath: path.join(base, 'no-such-bwrap') });
    const snapshot = await manager.start(bashRequest('echo unconfined', ws));
    expect(snapshot.output).toBe('unconfined\n');
  });
});
