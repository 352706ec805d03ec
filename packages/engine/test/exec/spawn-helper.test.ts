/**
 * The spawn helper (docs/performance.md "Starting commands"): piped commands start in a small
 * helper process, their output, exit and stdin cross its IPC channel, and nothing of the
 * command's behaviour changes. Asserted on the host: who the command's parent is, which
 * processes exist, what bytes arrive. Every case runs twice: with the helper starting commands
 * through `vfork` (the addon `pnpm build` compiles; required here on Linux when a C
 * compiler is on PATH) and with `DEPUTY_VFORK_SPAWN=0` (a fork, as without the addon).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasCCompiler } from '@deputy/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnOnPipes, type RawChild, type RawSpawnOptions } from '../../src/exec/process.js';
import { signalProcessGroup } from '../../src/exec/process-group.js';
import { helperSpawner, retireSpawnHelper, type HelperSpawner } from '../../src/exec/spawn-helper.js';
import { exists, killGroup, makeTempDir, testEnv, waitFor } from './helpers.js';

let cwd: string;
const groups: number[] = [];

beforeAll(async () => {
  cwd = await makeTempDir('deputy-spawn-helper-');
});

afterAll(async () => {
  await fs.promises.rm(cwd, { recursive: true, force: true });
});

afterEach(() => {
  for (const pgid of groups.splice(0)) killGroup(pgid);
});

interface Collected {
  child: RawChild;
  stdout: () => Buffer;
  stderr: () => Buffer;
}

async function run(argv: string[], overrides: Partial<RawSpawnOptions> = {}): Promise<Collected> {
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  const child = await spawnOnPipes({
    argv,
    cwd,
    env: testEnv(),
    stdin: 'pipe',
    outputDrainMs: 2_000,
    onOutput: (stream, bytes) => chunks[stream].push(bytes),
    ...overrides,
  });
  groups.push(child.pid);
  return { child, stdout: () => Buffer.concat(chunks.stdout), stderr: () => Buffer.concat(chunks.stderr) };
}

/** The parent pid of `pid`, from /proc. */
function parentOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** True while `pid` exists and is not a zombie waiting for its new parent to reap it. */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function commandLineOf(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
}

/** The addon as the build leaves it (the tests run from source and find it there). */
const ADDON = fileURLToPath(new URL('../../dist/native/vfork-spawn.node', import.meta.url));

/**
 * True once `pid` waits in nanosleep(2) or clock_nanosleep(2): by its kernel wait channel, or
 * by the system call it is in (x86-64 35 and 230, arm64 101 and 115) where the wait channel
 * reads as 0.
 */
function isInNanosleep(pid: number): boolean {
  try {
    if (fs.readFileSync(`/proc/${pid}/wchan`, 'utf8').includes('nanosleep')) return true;
    const call = fs.readFileSync(`/proc/${pid}/syscall`, 'utf8').split(' ')[0];
    const numbers = process.arch === 'arm64' ? ['101', '115'] : ['35', '230'];
    return numbers.includes(call ?? '');
  } catch {
    return false;
  }
}

/** The status line of /proc/PID/status named `field` (e.g. SigIgn), trimmed. */
function statusField(pid: number, field: string): string {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return (line ?? '').slice(field.length + 1).trim();
}

describe.each<HelperSpawner>(['vfork', 'fork'])('spawn helper (%s)', (spawner) => {
  beforeAll(async () => {
    // A new helper for this mode: the running one (if any) is idle between files and cases.
    expect(retireSpawnHelper()).toBe(true);
    if (spawner === 'fork') process.env.DEPUTY_VFORK_SPAWN = '0';
    else delete process.env.DEPUTY_VFORK_SPAWN;
  });

  afterAll(() => {
    delete process.env.DEPUTY_VFORK_SPAWN;
    retireSpawnHelper();
  });

  it.runIf(process.platform === 'linux' && (spawner === 'fork' || hasCCompiler))(`starts commands with ${spawner}`, async () => {
    if (spawner === 'vfork') expect(fs.existsSync(ADDON), `${ADDON} was not built (pnpm build compiles it)`).toBe(true);
    const { child } = await run(['/bin/sh', '-c', 'exit 0']);
    await child.ended;
    expect(helperSpawner()).toBe(spawner);
  });

  it('gives the command default signal dispositions, nothing blocked, /dev/null for an ignored stdin, and a session of its own', async () => {
    const { child } = await run(['/bin/sleep', '60'], { stdin: 'ignore' });
    // Past its start-up, asleep: the dynamic loader briefly holds a descriptor of its own (3, for
    // the C library) right after the exec, which would read as one the command was given.
    await waitFor(() => commandLineOf(child.pid).startsWith('/bin/sleep') && isInNanosleep(child.pid));
    // The helper (Node) ignores SIGPIPE and more; the command must not inherit that.
    expect(statusField(child.pid, 'SigIgn')).toBe('0000000000000000');
    expect(statusField(child.pid, 'SigBlk')).toBe('0000000000000000');
    // With vfork, no descriptor but its three (a fork passes on whatever the server inherited
    // without close-on-exec, as Node's own spawn does).
    if (spawner === 'vfork') expect(fs.readdirSync(`/proc/${child.pid}/fd`).sort()).toEqual(['0', '1', '2']);
    expect(fs.readlinkSync(`/proc/${child.pid}/fd/0`)).toBe('/dev/null');
    // Its own session and group.
    const raw = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    const stat = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    expect([Number(stat[2]), Number(stat[3])]).toEqual([child.pid, child.pid]);
    signalProcessGroup(child.pid, 'SIGKILL');
    expect(await child.exited).toEqual({ exitCode: null, signal: 'SIGKILL' });
  });

  it("finds a bare command name on the command's own PATH, as execvp does, skipping a file it may not run", async () => {
    const first = await makeTempDir('deputy-path-a-');
    const second = await makeTempDir('deputy-path-b-');
    try {
      // Not executable in the first directory (EACCES: execvp goes on), executable in the second.
      await fs.promises.writeFile(path.join(first, 'deputy-probe'), '#!/bin/sh\necho wrong\n', { mode: 0o644 });
      await fs.promises.writeFile(path.join(second, 'deputy-probe'), '#!/bin/sh\necho "found $0"\n', { mode: 0o755 });
      const env = { ...testEnv(), PATH: `${first}:${second}:/usr/bin:/bin` };
      const { child, stdout } = await run(['deputy-probe'], { env });
      expect(await child.ended).toEqual({ exitCode: 0, signal: null });
      expect(stdout().toString()).toBe(`found ${path.join(second, 'deputy-probe')}\n`);
      // Not on that PATH at all: refused as a direct spawn refuses it.
      await expect(run(['deputy-probe'], { env: { ...testEnv(), PATH: '/usr/bin:/bin' } })).rejects.toMatchObject({ code: 'spawn_failed', errno: 2 });
      // A working directory that does not exist: refused too.
      await expect(run(['/bin/true'], { cwd: path.join(cwd, 'no-such-dir') })).rejects.toMatchObject({ code: 'spawn_failed', errno: 2 });
    } finally {
      await fs.promises.rm(first, { recursive: true, force: true });
      await fs.promises.rm(second, { recursive: true, force: true });
    }
  });

  it('starts the command in the helper, in a group of its own, with stdout, stderr, stdin and the exit code intact', async () => {
    const { child, stdout, stderr } = await run(['/bin/sh', '-c', 'echo "pg:$(ps -o pgid= -p $$ | tr -d " ")"; cat; echo oops >&2; exit 7']);
    const parent = parentOf(child.pid);
    expect(parent).not.toBe(process.pid);
    expect(commandLineOf(parent)).toContain('deputy-spawn-helper');
    expect(parentOf(parent)).toBe(process.pid);
    child.write('from stdin\n');
    child.closeStdin();
    expect(await child.ended).toEqual({ exitCode: 7, signal: null });
    expect(stdout().toString()).toBe(`pg:${child.pid}\nfrom stdin\n`);
    expect(stderr().toString()).toBe('oops\n');
  });

  it('keeps apart a burst of commands started, fed and closed in one turn of the event loop', async () => {
    // Requests of one turn reach the helper together, and what it reports in one turn comes back
    // together: every command still gets its own stdin, output and exit code.
    const count = 40;
    const collected = await Promise.all(
      Array.from({ length: count }, (_, i) => run(['/bin/sh', '-c', `read word; echo "out ${i} $word"; echo "err ${i}" >&2; exit ${i}`])),
    );
    // All of them wait on stdin, children of the one helper.
    expect(new Set(collected.map(({ child }) => parentOf(child.pid))).size).toBe(1);
    for (const [i, { child }] of collected.entries()) {
      child.write(`w${i}\n`);
      child.closeStdin();
    }
    const ends = await Promise.all(collected.map(({ child }) => child.ended));
    expect(ends).toEqual(Array.from({ length: count }, (_, i) => ({ exitCode: i, signal: null })));
    expect(collected.map(({ stdout }) => stdout().toString())).toEqual(Array.from({ length: count }, (_, i) => `out ${i} w${i}\n`));
    expect(collected.map(({ stderr }) => stderr().toString())).toEqual(Array.from({ length: count }, (_, i) => `err ${i}\n`));
  });

  it('refuses a command that cannot start with the OS error number, as a direct spawn does', async () => {
    await expect(run([path.join(cwd, 'missing-program')])).rejects.toMatchObject({ code: 'spawn_failed', errno: 2 });
  });

  it('refuses a NUL in an argument, the cwd or the environment with Node\'s error, never running a cut string', async () => {
    const nulIn = [
      run(['/bin/echo', 'a\u0000b']),
      run(['/bin/echo', 'a'], { cwd: `${cwd}\u0000x` }),
      run(['/bin/echo', 'a'], { env: { PATH: '/usr/bin:/bin', MARK: 'a\u0000b' } }),
    ];
    for (const attempt of nulIn) await expect(attempt).rejects.toMatchObject({ code: 'spawn_failed', message: expect.stringMatching(/null bytes/) });
  });

  it('delivers a large output whole and in order', async () => {
    const { child, stdout } = await run(['/bin/sh', '-c', 'head -c 5000000 /dev/urandom | tee out.bin | cat']);
    await child.ended;
    const expected = createHash('sha256').update(fs.readFileSync(path.join(cwd, 'out.bin'))).digest('hex');
    expect(createHash('sha256').update(stdout()).digest('hex')).toBe(expected);
  });

  it('lets this process signal the command group directly', async () => {
    const { child } = await run(['/bin/sh', '-c', 'sleep 60 & sleep 60']);
    expect(signalProcessGroup(child.pid, 'SIGKILL')).toBe(true);
    expect(await child.exited).toEqual({ exitCode: null, signal: 'SIGKILL' });
    await waitFor(() => !exists(child.pid, true));
  });

  it('kills the commands of a helper that dies and reports them killed; the next command gets a new helper', async () => {
    const { child } = await run(['/bin/sh', '-c', 'sleep 60']);
    const helper = parentOf(child.pid);
    process.kill(helper, 'SIGKILL');
    expect(await child.exited).toEqual({ exitCode: null, signal: 'SIGKILL' });
    await waitFor(() => !exists(child.pid, true));
    const next = await run(['/bin/sh', '-c', 'read word; echo "again $word"']);
    expect(parentOf(next.child.pid)).not.toBe(helper);
    expect(commandLineOf(parentOf(next.child.pid))).toContain('deputy-spawn-helper');
    next.child.write('ok\n');
    expect(await next.child.ended).toEqual({ exitCode: 0, signal: null });
    expect(next.stdout().toString()).toBe('again ok\n');
  });

  it('exits with the process that started it', async () => {
    // A separate process (the built engine; CI builds before it tests) starts a command, prints its
    // pid, and is then killed with SIGKILL.
    const entry = fileURLToPath(new URL('../../dist/exec/process.js', import.meta.url));
    const script = `import { spawnOnPipes } from ${JSON.stringify(entry)};
      const child = await spawnOnPipes({ argv: ['/bin/sleep', '60'], cwd: ${JSON.stringify(cwd)}, env: { PATH: '/usr/bin:/bin' }, stdin: 'ignore', outputDrainMs: 10, onOutput() {} });
      process.stdout.write(child.pid + '\\n');
      setInterval(() => undefined, 1000);`;
    const owner = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const pid = await new Promise<number>((resolve, reject) => {
        owner.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
        owner.once('exit', (code) => reject(new Error(`owner exited with ${code}`)));
      });
      groups.push(pid);
      const helper = parentOf(pid);
      expect(commandLineOf(helper)).toContain('deputy-spawn-helper');
      owner.kill('SIGKILL');
      await waitFor(() => !isRunning(helper), 10_000, 'the helper to exit');
    } finally {
      if (owner.exitCode === null && owner.signalCode === null) owner.kill('SIGKILL');
    }
  });

  it('is off with DEPUTY_SPAWN_HELPER=0: the command is a child of this process', async () => {
    process.env.DEPUTY_SPAWN_HELPER = '0';
    try {
      const { child, stdout } = await run(['/bin/sh', '-c', 'echo direct']);
      expect(parentOf(child.pid)).toBe(process.pid);
      await child.ended;
      expect(stdout().toString()).toBe('direct\n');
    } finally {
      delete process.env.DEPUTY_SPAWN_HELPER;
    }
  });

  it("never lets `bash -c` on our pipes read ~/.bashrc, whatever SHLVL the server was given", async () => {
    // Node's pipes are socket pairs: a bash with a socket on stdin and SHLVL unset or 0 takes
    // itself for a command run by sshd/rshd and reads ~/.bashrc. The reference's pipes are real pipes.
    const home = await makeTempDir('deputy-shlvl-home-');
    try {
      await fs.promises.writeFile(path.join(home, '.bashrc'), 'export RC_MARK=sourced\n');
      const script = 'printf %s "${RC_MARK:-none}"';
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
      // The cause, with a plain spawn on Node's pipes: bash reads the file.
      const direct = spawn('/bin/bash', ['-c', script], { env, stdio: ['pipe', 'pipe', 'ignore'] });
      direct.stdin.end();
      const directOut: Buffer[] = [];
      direct.stdout.on('data', (chunk: Buffer) => directOut.push(chunk));
      await new Promise((resolve) => direct.once('close', resolve));
      expect(Buffer.concat(directOut).toString()).toBe('sourced');
      for (const helper of ['1', '0']) {
        if (helper === '0') process.env.DEPUTY_SPAWN_HELPER = '0';
        try {
          for (const level of [undefined, '0', '3']) {
            const { child, stdout } = await run(['/bin/bash', '-c', `${script}; printf " %s" "$SHLVL"`], {
              env: level === undefined ? env : { ...env, SHLVL: level },
            });
            await child.ended;
            // Not read; and a SHLVL of 1 or more is passed on as it was (bash adds one).
            expect(stdout().toString()).toBe(`none ${level === '3' ? 4 : 2}`);
          }
        } finally {
          delete process.env.DEPUTY_SPAWN_HELPER;
        }
      }
    } finally {
      await fs.promises.rm(home, { recursive: true, force: true });
    }
  });
});
