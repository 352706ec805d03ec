/**
 * The shell snapshot of a thread: the state a login shell builds from the user's profile
 * (`/etc/profile`, `~/.profile`, `~/.bashrc`…), captured once and sourced by every command, so a
 * command runs as `<shell> -c '. <snapshot> || exit 1; <cmd>'` instead of paying the login
 * shell's start-up each time (reference: codex-rs/core/src/shell_snapshot.rs, feature
 * `shell_snapshot`).
 *
 * How it is taken: the command's own environment (after `shell_environment_policy`) starts a
 * login shell, confined like the command that asked for it, which prints its functions, options
 * and aliases (bash, zsh) and `env -0`. The file keeps only what the profile changed: the
 * variables it exported or changed (minus the ones the environment policy drops, so a secret an
 * rc file exports never lands in the file) and the ones it unset; `PWD`, `OLDPWD`, `SHLVL` and `_`
 * are left to the shell. It is sourced once by a non-login shell before it is used; any failure
 * (no `env -0`, a timeout, a file that does not source) leaves the thread on the login shell, and
 * the first such failure of the process is logged to stderr.
 *
 * Where: `<home>/shell_snapshots/<thread id>.<nonce>.sh` (0600), written as `<thread
 * id>.tmp-<nonce>` and renamed. The home is hidden from sandboxed commands, so the command gets
 * the file bound read-only on top of that mask and nothing else of the home. A new snapshot is
 * taken when the shell, the turn's cwd or the command environment changes; the files of a thread
 * are removed when it closes, and {@link cleanStaleShellSnapshots} removes the ones left by
 * processes that died (older than three days, or unfinished ones older than an hour). Threads
 * of one process that ask for the same shell, cwd, environment and sandbox within 30 seconds
 * share one capture (each still gets its own file, a hard link to the first one's when it can),
 * so many threads starting at once start one login shell.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { link as linkCallback, mkdirSync, rename as renameCallback, writeFile as writeFileCallback } from 'node:fs';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { SandboxPolicy } from '@deputy/protocol';
import { ExecChild } from './child.js';
import { policyKeepsName, type ShellEnvironmentPolicy } from './env.js';
import { shellQuote } from './shell.js';

/** The directory under Deputy's home, as in the reference. */
export const SHELL_SNAPSHOT_DIR = 'shell_snapshots';
/** How long taking (or checking) a snapshot may take before the thread stays on the login shell. */
export const SNAPSHOT_TIMEOUT_MS = 10_000;
/** Snapshots older than this are left over by a process that died. */
const SNAPSHOT_RETENTION_MS = 3 * 24 * 60 * 60 * 1000;
/** Unfinished snapshots (`.tmp-`) older than this are left over too. */
const TEMP_RETENTION_MS = 60 * 60 * 1000;
/** Snapshots one thread keeps at once (one per shell/cwd/environment it used). */
const MAX_SNAPSHOTS_PER_THREAD = 4;
/** Output of the capture beyond this is refused (a profile that prints without end). */
const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;
/** Variables the shell itself maintains; never written to the snapshot. */
const SHELL_OWNED_VARS: ReadonlySet<string> = new Set(['PWD', 'OLDPWD', 'SHLVL', '_']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The command environment a snapshot belongs to, and how to confine the shells that take it. */
export interface SnapshotRequest {
  /** The shell executable (argv[0] of the `-lc` command). */
  shell: string;
  /** The turn's cwd: the snapshot's login shell starts there. */
  cwd: string;
  /** The complete command environment. */
  env: Readonly<Record<string, string>>;
  /** The sandbox of the command that asked (the capture runs confined the same way). */
  sandbox: SandboxPolicy;
  /** Paths hidden from sandboxed commands (the capture hides them too). */
  hiddenPaths?: readonly string[];
}

/** A `-lc` command rewritten to source the snapshot. */
export interface SnapshotCommand {
  argv: string[];
  /** The snapshot file: bind it read-only into the sandbox. */
  readablePaths: string[];
}

/** Options of {@link ShellSnapshots}. */
export interface ShellSnapshotsOptions {
  /** Deputy's home. */
  home: string;
  /** Names the files. */
  threadId: string;
  /** The policy the command environment was built with (filters what the profile exports). */
  envPolicy: ShellEnvironmentPolicy;
  /** Where failures are reported; default: the first one of the process to stderr. */
  onFailure?: (message: string) => void;
  /**
   * True (the default): a command waits for a snapshot being taken. False: a command that finds
   * none ready runs in the login shell as it is, and starts the capture for later commands.
   */
  waitForCapture?: boolean;
}

interface Entry {
  key: string;
  /** The snapshot's path, or null when it could not be taken. */
  file: Promise<string | null>;
  /** Set once `file` settled. */
  done?: { file: string | null };
}

let hasLoggedFailure = false;
function logFailureOnce(message: string): void {
  if (hasLoggedFailure) return;
  hasLoggedFailure = true;
  process.stderr.write(`deputy: ${message}; commands run in a login shell instead (logged once)\n`);
}

/** The login-shell snapshots of one thread. */
export class ShellSnapshots {
  readonly #entries: Entry[] = [];
  readonly #files = new Set<string>();
  #closed = false;

  constructor(private readonly options: ShellSnapshotsOptions) {}

  /** Starts taking the snapshot for `request` if there is none yet (the first command awaits it). */
  prewarm(request: SnapshotRequest): void {
    this.#snapshotFor(request);
  }

  /**
   * `argv` rewritten to source the snapshot, or null when it is not a `[shell, '-lc', script]`
   * command or no snapshot could be taken (run `argv` as it is); with `waitForCapture: false`,
   * also while the snapshot is still being taken.
   */
  async wrap(argv: readonly string[], request: Omit<SnapshotRequest, 'shell'>): Promise<SnapshotCommand | null> {
    const [shell, flag, script] = argv;
    if (argv.length !== 3 || flag !== '-lc' || shell === undefined || script === undefined || this.#closed) return null;
    const entry = this.#snapshotFor({ ...request, shell });
    if (this.options.waitForCapture === false && entry.done === undefined) return null;
    const file = await entry.file;
    if (file === null) return null;
    return { argv: [shell, '-c', `. ${shellQuote(file)} || exit 1; ${script}`], readablePaths: [file] };
  }

  /** Removes the thread's snapshot files; later commands use the login shell. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#entries.map((e) => e.file.catch(() => null)));
    await Promise.all([...this.#files].map((f) => rm(f, { force: true }).catch(() => undefined)));
    this.#files.clear();
  }

  #snapshotFor(request: SnapshotRequest): Entry {
    const key = snapshotKey(request);
    const found = this.#entries.find((e) => e.key === key);
    if (found) return found;
    const entry: Entry = { key, file: this.#take(request, key) };
    void entry.file.then((file) => (entry.done = { file }));
    this.#entries.push(entry);
    // The oldest snapshot's file stays until the thread closes (a running command may still read it).
    if (this.#entries.length > MAX_SNAPSHOTS_PER_THREAD) this.#entries.shift();
    return entry;
  }

  async #take(request: SnapshotRequest, key: string): Promise<string | null> {
    const dir = path.join(this.options.home, SHELL_SNAPSHOT_DIR);
    // Unique per file (the thread id already is per thread); not a secret.
    const nonce = `${Date.now()}${randomUUID().slice(0, 6)}`;
    const temp = path.join(dir, `${this.options.threadId}.tmp-${nonce}`);
    const file = path.join(dir, `${this.options.threadId}.${nonce}.sh`);
    try {
      const shared = verifiedSnapshot(request, key, this.options.envPolicy, dir, `${this.options.threadId}.check-${nonce}`);
      const text = await shared.text;
      this.#files.add(file);
      // A thread that is not the first to use this text links its file to the first one's: one
      // system call instead of creating, writing and renaming a file (200 threads starting turns
      // at once each need one). The first thread's file may be gone by then; the thread then
      // writes its own, which later threads link to.
      const source = shared.firstFile === undefined ? null : await shared.firstFile;
      if (source === null || !(await linkInPool(source, file).then(() => true, () => false))) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        this.#files.add(temp);
        const written = writeSnapshotFile(temp, file, text);
        if (source !== null || shared.firstFile === undefined) shared.firstFile = written.then(() => file, () => null);
        await written;
      }
      this.#files.delete(temp);
      if (this.#closed) {
        await rm(file, { force: true });
        return null;
      }
      return file;
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      this.#files.delete(temp);
      this.#files.delete(file);
      const message = `shell snapshot of ${request.shell} in ${request.cwd} failed: ${(error as Error).message}`;
      (this.options.onFailure ?? logFailureOnce)(message);
      return null;
    }
  }
}

/**
 * Writes `text` as `file` through `temp` (so the file appears whole). Through the callback API:
 * creating the file can take the kernel half a millisecond, which must not block the event loop,
 * and fs/promises wraps each call in a FileHandle that costs the loop more than the write.
 */
async function writeSnapshotFile(temp: string, file: string, text: string): Promise<void> {
  await writeFileInPool(temp, text, { mode: 0o600 });
  await renameInPool(temp, file);
}

const writeFileInPool = promisify(writeFileCallback);
const renameInPool = promisify(renameCallback);
const linkInPool = promisify(linkCallback);

/** How long a verified snapshot text serves other threads (a profile edit shows up after it). */
const SHARED_SNAPSHOT_TTL_MS = 30_000;
/** A verified snapshot text, shared by the threads of this process that ask for the same one. */
interface SharedSnapshot {
  takenAtMs: number;
  text: Promise<string>;
  /** A thread's file holding `text` (null when writing it failed); unset until a thread writes one. */
  firstFile?: Promise<string | null>;
}
/** Verified snapshot texts of this process by request (shell, cwd, env, sandbox, policy). */
const verifiedTexts = new Map<string, SharedSnapshot>();

/**
 * The snapshot text for `request`, captured and checked (sourced once) by the first thread that
 * asks; threads asking for the same shell, cwd, environment and sandbox within
 * `SHARED_SNAPSHOT_TTL_MS` get the same text without starting a login shell, so 200 new threads
 * starting turns at once pay one capture, not 200. A failed capture is not kept.
 */
function verifiedSnapshot(request: SnapshotRequest, requestKey: string, envPolicy: ShellEnvironmentPolicy, dir: string, checkName: string): SharedSnapshot {
  const key = createHash('sha256')
    .update(JSON.stringify([requestKey, request.sandbox, request.hiddenPaths ?? [], envPolicy]))
    .digest('hex');
  const now = Date.now();
  for (const [k, v] of verifiedTexts) if (now - v.takenAtMs > SHARED_SNAPSHOT_TTL_MS) verifiedTexts.delete(k);
  const found = verifiedTexts.get(key);
  if (found) return found;
  const text = (async () => {
    const captured = await captureSnapshot(request, envPolicy);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const check = path.join(dir, checkName);
    try {
      await writeFile(check, captured, { mode: 0o600 });
      await checkSnapshot(check, request);
    } finally {
      await rm(check, { force: true }).catch(() => undefined);
    }
    return captured;
  })();
  const shared: SharedSnapshot = { takenAtMs: now, text };
  verifiedTexts.set(key, shared);
  text.catch(() => verifiedTexts.delete(key));
  return shared;
}

/** Identifies the shell, cwd and environment a snapshot was taken for. */
function snapshotKey(request: SnapshotRequest): string {
  const env = Object.entries(request.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify([request.shell, request.cwd, env])).digest('hex');
}

/** Runs `argv` like a command of `request` (same env, cwd, sandbox), returning stdout; throws on failure or timeout. */
async function runConfined(argv: string[], request: SnapshotRequest, readablePaths: string[] = []): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const errors: Buffer[] = [];
  let size = 0;
  // Output may arrive before `spawn` resolves; the cap then takes effect from the next chunk on.
  let started: ExecChild | null = null;
  const child = await ExecChild.spawn({
    argv,
    cwd: request.cwd,
    env: request.env,
    sandbox: request.sandbox,
    hiddenPaths: request.hiddenPaths,
    readablePaths,
    stdin: 'ignore',
    onOutput: (stream, bytes) => {
      size += bytes.length;
      if (size > MAX_CAPTURE_BYTES) {
        void started?.terminate();
        return;
      }
      (stream === 'stdout' ? chunks : errors).push(bytes);
    },
  });
  started = child;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), SNAPSHOT_TIMEOUT_MS);
  });
  try {
    const exit = await Promise.race([child.ended, timedOut]);
    if (exit === 'timeout') throw new Error(`the shell did not finish within ${SNAPSHOT_TIMEOUT_MS} ms`);
    if (size > MAX_CAPTURE_BYTES) throw new Error(`the shell printed more than ${MAX_CAPTURE_BYTES} bytes`);
    if (exit.exitCode !== 0) {
      const stderr = Buffer.concat(errors).toString('utf8').trim().slice(-500);
      throw new Error(`the shell exited with ${exit.exitCode ?? exit.signal}${stderr ? `: ${stderr}` : ''}`);
    }
    return Buffer.concat(chunks);
  } finally {
    clearTimeout(timer);
    await child.terminate();
    child.dispose();
  }
}

/** The script a login shell runs to print its state between markers. */
function captureScript(shell: string, marker: string): string {
  const name = path.basename(shell);
  const section = (title: string) => `printf '\\n%s\\n' '${marker} ${title}'`;
  const lines = [section('BEGIN')];
  if (name === 'bash') {
    lines.push(section('FUNCTIONS'), 'declare -f', section('OPTIONS'), 'set +o', section('ALIASES'), 'alias -p');
  } else if (name === 'zsh') {
    lines.push(section('FUNCTIONS'), 'functions', section('OPTIONS'), 'for o in $(setopt); do print -r -- "setopt $o"; done', section('ALIASES'), 'alias -L');
  }
  lines.push(section('ENV'), 'exec env -0');
  return lines.join('\n');
}

/**
 * Takes the snapshot text for `request`: a login shell of `request.shell`, confined like the
 * command, prints its state; the text sets what the profile changed. Throws when it cannot.
 */
export async function captureSnapshot(request: SnapshotRequest, envPolicy: ShellEnvironmentPolicy): Promise<string> {
  const marker = `__DEPUTY_SNAPSHOT_${randomBytes(8).toString('hex')}__`;
  const out = (await runConfined([request.shell, '-lc', captureScript(request.shell, marker)], request)).toString('utf8');
  const begin = out.lastIndexOf(`\n${marker} BEGIN\n`);
  if (begin === -1) throw new Error('the shell printed no snapshot');
  const sections = new Map<string, string>();
  const parts = out.slice(begin + 1).split(new RegExp(`\\n?${marker} ([A-Z]+)\\n`));
  for (let i = 1; i + 1 < parts.length; i += 2) sections.set(parts[i] as string, parts[i + 1] as string);
  const envText = sections.get('ENV');
  if (envText === undefined) throw new Error('the shell printed no environment');
  const loginEnv = new Map<string, string>();
  for (const entry of envText.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) loginEnv.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  if (loginEnv.size === 0) throw new Error('the shell printed an empty environment');
  const exports: string[] = [];
  for (const [name, value] of loginEnv) {
    if (SHELL_OWNED_VARS.has(name) || !NAME.test(name) || request.env[name] === value) continue;
    // A variable the profile added or changed is kept only where the environment policy would keep it.
    if (!policyKeepsName(name, envPolicy)) continue;
    exports.push(`export ${name}=${shellQuote(value)}`);
  }
  const unsets = Object.keys(request.env).filter((name) => !loginEnv.has(name) && !SHELL_OWNED_VARS.has(name) && NAME.test(name));
  const block = (title: string) => (sections.get(title) ?? '').trimEnd();
  return [
    `# Snapshot file: the login shell state of ${request.shell} in ${request.cwd}, taken by Deputy`,
    '# Functions',
    block('FUNCTIONS'),
    '# Options',
    block('OPTIONS'),
    '# Aliases',
    'unalias -a 2>/dev/null || true',
    block('ALIASES'),
    `# Exports ${exports.length}`,
    ...exports,
    `# Unset ${unsets.length}`,
    ...unsets.map((name) => `unset ${name}`),
    'true',
    '',
  ].join('\n');
}

/** Sources the file in a non-login shell, confined like the command; throws when that fails. */
async function checkSnapshot(file: string, request: SnapshotRequest): Promise<void> {
  await runConfined([request.shell, '-c', `. ${shellQuote(file)}`], request, [file]);
}

/**
 * Removes snapshot files a process left behind when it died: finished ones older than three
 * days, unfinished ones older than an hour (another live process's snapshots are younger).
 */
export async function cleanStaleShellSnapshots(home: string, now = Date.now()): Promise<number> {
  const dir = path.join(home, SHELL_SNAPSHOT_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const age = now - (await stat(file)).mtimeMs;
      if (age > (name.includes('.tmp-') ? TEMP_RETENTION_MS : SNAPSHOT_RETENTION_MS)) {
        await rm(file, { force: true });
        removed += 1;
      }
    } catch {
      continue;
    }
  }
  return removed;
}
