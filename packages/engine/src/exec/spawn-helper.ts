/**
 * The spawn helper: a small Node process that starts this process's piped commands and relays
 * their output, so that starting a command never blocks the event loop for long.
 *
 * `child_process.spawn` forks, and the fork copies the page tables of the whole process; the
 * caller then waits until the child has called `exec`. A server holding 150 MB blocks about 13 ms
 * per command on a small machine, 23 ms at 350 MB, and far longer when hundreds of commands start
 * at once, while every other client waits. The helper forks from a process of about 40 MB, on
 * another core when there is one. It reads the command's pipes (the command sees ordinary pipes,
 * exactly as before) and sends each chunk here as a message; stdin, pause and resume go the
 * other way. Passing the pipes themselves was tried and is slower under load: Node sends one
 * descriptor at a time and waits for this process's event loop to acknowledge each one.
 *
 * The command leads its own process group, as before, and this process signals the group
 * directly. The helper starts with the first command (or a prewarm), runs with an empty
 * environment and none of this process's Node options, pauses a command's pipes while its
 * messages back up, exits {@link HELPER_IDLE_MS} after its last command ended, and exits when this
 * process goes away (its IPC channel closes). When it cannot start, commands are spawned here
 * (logged once); when it dies, the groups of the commands it was watching are killed, since their
 * exit could no longer be observed. `DEPUTY_SPAWN_HELPER=0` turns it off.
 *
 * Where it can, the helper starts commands with `vfork` + `exec` (what `posix_spawn` does:
 * nothing of the helper is copied) through a small Node-API addon, `vfork-spawn.node`, that the
 * build compiles from packages/engine/native/vfork-spawn.c. The command is set up as
 * `child_process.spawn` sets up a detached child with piped stdio, and more strictly: its own
 * session, every signal at its default and none blocked, no descriptor but its three, the
 * command's own `PATH` searched as `execvp` searches it; the helper reaps it on `SIGCHLD`. Without
 * the addon (not Linux, no compiler at build time, a libc it does not load on,
 * `DEPUTY_VFORK_SPAWN=0`) the helper forks as before. On this VM a fork was most of a short
 * command's cost (docs/performance.md "Starting commands without a fork").
 *
 * Two more things keep each start cheap on a busy machine (docs/performance.md "Starting commands").
 * The helper runs with `--single-threaded` (V8 then gives its worker threads nothing to do): each
 * fork cost it about a fifth less CPU, measured, most likely because its memory is then in use on
 * one CPU only and write-protecting it for the fork flushes no other CPU's TLB. And messages are
 * batched both ways: what one side has to say in one turn of its event loop leaves as one
 * `{ t: 'batch', m: [...] }` message (a burst of starts costs the helper one read; a short
 * command's start, output, ends and exit come back as one).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { z } from 'zod';
import { nativeAddonPath } from '../util/native-addon.js';
import { signalProcessGroup } from './process-group.js';

/** How a helper starts commands: `vfork` through the addon, or `child_process.spawn` (a fork). */
export type HelperSpawner = 'vfork' | 'fork';

/**
 * Where the addon `vfork-spawn.node` is (scripts/build-native.mjs builds it; `nativeAddonPath`).
 * Null off Linux, when it was not built, or with `DEPUTY_VFORK_SPAWN=0`.
 */
function vforkSpawnAddon(): string | null {
  return process.env.DEPUTY_VFORK_SPAWN === '0' ? null : nativeAddonPath('vfork-spawn.node');
}

/** How long the helper stays after its last command ended. */
export const HELPER_IDLE_MS = 3_000;
/** How long the helper may take to say it is ready before commands are spawned here. */
const HELPER_START_TIMEOUT_MS = 10_000;

/** What the helper needs to start one command on pipes, in a process group of its own. */
export interface HelperSpawnRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  stdin: 'pipe' | 'ignore';
  onOutput(stream: 'stdout' | 'stderr', bytes: Buffer): void;
}

/** How the leader ended, as `child_process` reports it. */
export interface HelperExit {
  exitCode: number | null;
  signal: string | null;
}

/** A command the helper started. */
export interface HelperChild {
  /** The leader's pid, also its process group. */
  pid: number;
  /** Settles when the leader has exited. */
  exited: Promise<HelperExit>;
  /** Settles when both output pipes reached their end (or were released). */
  outputsClosed: Promise<void>;
  write(data: Buffer | string): void;
  closeStdin(): void;
  pause(): void;
  resume(): void;
  /** Releases the pipes (in the helper) and forgets the command; signals nothing. */
  dispose(): void;
}

/** A start the helper refused, in Node's words, with the OS error number when there is one. */
export class HelperSpawnFailure extends Error {
  constructor(
    message: string,
    readonly errno: number | undefined,
  ) {
    super(message);
  }
}

// The helper's program (CommonJS, run with `node -e`).
const HELPER_PROGRAM = `'use strict';
const { spawn } = require('node:child_process');
const { EventEmitter } = require('node:events');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
process.title = 'deputy-spawn-helper';
const children = new Map();
// vfork + exec through the addon (argv[1]) when it loads; child_process.spawn (a fork) otherwise.
const addon = (() => {
  if (!process.argv[1]) return null;
  try {
    const holder = { exports: {} };
    process.dlopen(holder, process.argv[1]);
    return typeof holder.exports.spawn === 'function' && typeof holder.exports.reap === 'function' ? holder.exports : null;
  } catch {
    return null;
  }
})();
const signalNames = new Map(Object.entries(os.constants.signals).map(([name, number]) => [number, name]));
const spawned = new Map();
if (addon) {
  process.on('SIGCHLD', () => {
    for (const [pid, code, signal] of addon.reap([...spawned.keys()])) {
      const child = spawned.get(pid);
      spawned.delete(pid);
      child.emit('exit', code, signal ? (signalNames.get(signal) || null) : null);
      child.ended();
    }
  });
}
// Where execvp would find file: itself when it names a path, else the first regular file of that
// name on the command's own PATH (libuv's default path when it has none).
function* candidates(file, env) {
  if (file.includes('/')) { yield file; return; }
  const dirs = (typeof env.PATH === 'string' ? env.PATH : '/usr/bin:/bin').split(':');
  for (const dir of dirs) {
    const full = (dir === '' ? '.' : dir) + '/' + file;
    const stat = fs.statSync(full, { throwIfNoEntry: false });
    if (stat && stat.isFile()) yield full;
  }
}
const hasNul = (m, options) => [m.file, options.cwd, ...m.args, ...Object.entries(options.env).flat()]
  .some((text) => typeof text === 'string' && text.includes(String.fromCharCode(0)));
// A command started through the addon, with what start() uses of a ChildProcess.
function spawnFast(file, args, options) {
  const envp = Object.entries(options.env).map(([name, value]) => name + '=' + value);
  let started = null;
  let failure = null;
  for (const path of candidates(file, options.env)) {
    try {
      started = addon.spawn(path, [file, ...args], envp, options.cwd, options.stdio[0] === 'pipe');
      break;
    } catch (error) {
      failure = error;
      if (error.errno !== -13) break; // EACCES: execvp goes on to the next directory
    }
  }
  if (started === null) {
    const errno = failure ? failure.errno : -2;
    const code = require('node:util').getSystemErrorName(errno);
    throw Object.assign(new Error('spawn ' + file + ' ' + code), { errno, code, syscall: 'spawn ' + file, path: file });
  }
  const [pid, stdinFd, stdoutFd, stderrFd] = started;
  const child = new EventEmitter();
  child.pid = pid;
  child.stdin = stdinFd >= 0 ? new net.Socket({ fd: stdinFd, readable: false, writable: true }) : null;
  child.stdout = new net.Socket({ fd: stdoutFd, readable: true, writable: false });
  child.stderr = new net.Socket({ fd: stderrFd, readable: true, writable: false });
  // 'close' once the command exited and both its outputs closed, as child_process says it.
  let open = 3;
  child.ended = () => { if (--open === 0) child.emit('close'); };
  child.stdout.once('close', child.ended);
  child.stderr.once('close', child.ended);
  spawned.set(pid, child);
  return child;
}
// Messages of one turn of the event loop leave together, as one batch (see the module comment).
let outbox = [];
let acks = [];
const flush = () => {
  const batch = outbox;
  const done = acks;
  outbox = [];
  acks = [];
  if (!process.connected || batch.length === 0) return;
  const ack = () => { for (const fn of done) fn(); };
  const sent = process.send(batch.length === 1 ? batch[0] : { t: 'batch', m: batch }, undefined, {}, ack);
  // The channel backs up: every command with output on the way waits until it drained.
  if (!sent) for (const entry of children.values()) if (entry.held > 0) entry.flow();
};
const send = (message, done) => {
  if (!process.connected) return;
  if (outbox.length === 0) setImmediate(flush);
  outbox.push(message);
  if (done) acks.push(done);
};
const failure = (id, error) => ({ t: 'fail', id, message: String(error && error.message), errno: typeof (error && error.errno) === 'number' ? error.errno : null });
function start(m) {
  let child;
  try {
    const options = { cwd: m.cwd, env: m.env, detached: true, stdio: [m.stdin, 'pipe', 'pipe'] };
    // A NUL in any string cannot reach execve whole: Node's spawn refuses it with its own error.
    child = addon && !hasNul(m, options) ? spawnFast(m.file, m.args, options) : spawn(m.file, m.args, options);
  } catch (error) {
    send(failure(m.id, error));
    return;
  }
  if (child.pid === undefined) {
    child.once('error', (error) => send(failure(m.id, error)));
    return;
  }
  child.on('error', () => undefined);
  const entry = { child, held: 0, paused: false };
  children.set(m.id, entry);
  send({ t: 'started', id: m.id, pid: child.pid });
  const streams = [child.stdout, child.stderr];
  const flow = () => {
    for (const stream of streams) if (entry.paused || entry.held > 0) stream.pause(); else stream.resume();
  };
  entry.flow = flow;
  for (const [name, stream] of [['stdout', child.stdout], ['stderr', child.stderr]]) {
    stream.on('error', () => undefined);
    stream.on('data', (d) => {
      // While the channel backs up, the command's pipes wait (the command blocks on a full pipe).
      entry.held++;
      send({ t: 'out', id: m.id, s: name, d }, () => {
        if (--entry.held === 0) flow();
      });
    });
    stream.once('close', () => send({ t: 'eof', id: m.id, s: name }));
  }
  if (child.stdin) child.stdin.on('error', () => undefined);
  child.once('exit', (code, signal) => send({ t: 'exit', id: m.id, code, signal }));
  child.once('close', () => children.delete(m.id));
}
function receive(m) {
  if (!m || typeof m.t !== 'string') return;
  if (m.t === 'batch') { if (Array.isArray(m.m)) for (const each of m.m) receive(each); return; }
  if (m.t === 'spawn') return start(m);
  const entry = children.get(m.id);
  if (!entry) return;
  const { child } = entry;
  if (m.t === 'in') { if (child.stdin && child.stdin.writable) child.stdin.write(m.d); }
  else if (m.t === 'inEnd') { if (child.stdin) child.stdin.end(); }
  else if (m.t === 'pause') { entry.paused = true; entry.flow(); }
  else if (m.t === 'resume') { entry.paused = false; entry.flow(); }
  else if (m.t === 'dispose') { if (child.stdin) child.stdin.destroy(); child.stdout.destroy(); child.stderr.destroy(); }
}
process.on('message', receive);
process.on('disconnect', () => process.exit(0));
send({ t: 'ready', spawner: addon ? 'vfork' : 'fork' });
`;

const streamName = z.enum(['stdout', 'stderr']);
const helperMessage = z.discriminatedUnion('t', [
  z.object({ t: z.literal('ready'), spawner: z.enum(['vfork', 'fork']).optional() }),
  z.object({ t: z.literal('fail'), id: z.number(), message: z.string(), errno: z.number().nullable() }),
  z.object({ t: z.literal('started'), id: z.number(), pid: z.number() }),
  z.object({ t: z.literal('out'), id: z.number(), s: streamName, d: z.instanceof(Uint8Array) }),
  z.object({ t: z.literal('eof'), id: z.number(), s: streamName }),
  z.object({ t: z.literal('exit'), id: z.number(), code: z.number().nullable(), signal: z.string().nullable() }),
]);
/** What the helper sends: one message, or the messages of one turn of its event loop. */
const helperBatch = z.object({ t: z.literal('batch'), m: z.array(z.unknown()) });

/** One command between the request and the end of its output and exit. */
interface Entry {
  /** The helper that was asked. */
  helper: ChildProcess;
  request: HelperSpawnRequest;
  /** What the caller gets once the helper reports the pid. */
  child: HelperChild;
  pid?: number;
  /** Settles the start: the child, a refusal, or null when the helper never ran (spawn here). */
  started: (outcome: HelperChild | HelperSpawnFailure | null) => void;
  isStarted: boolean;
  /** The caller released the pipes: later output is dropped. */
  isDisposed: boolean;
  hasExited: boolean;
  exit: (exit: HelperExit) => void;
  openOutputs: number;
  closeOutputs: () => void;
}

function loggedOnce(): (message: string) => void {
  let said = false;
  return (message) => {
    if (said) return;
    said = true;
    process.stderr.write(`deputy: ${message}; commands are spawned directly (logged once)\n`);
  };
}

/** One helper process at a time and the commands it started; see the module comment. */
class SpawnHelper {
  #process: ChildProcess | null = null;
  /** Helpers that said they are ready, and helpers sent away when idle. */
  readonly #ready = new WeakSet<ChildProcess>();
  /** How each ready helper starts commands. */
  readonly #spawners = new WeakMap<ChildProcess, HelperSpawner>();
  readonly #retired = new WeakSet<ChildProcess>();
  #idleTimer: NodeJS.Timeout | undefined;
  #isDisabled = false;
  #nextId = 1;
  readonly #entries = new Map<number, Entry>();
  /** Messages for each helper, sent together at the end of this turn of the event loop. */
  readonly #outboxes = new Map<ChildProcess, Array<Record<string, unknown>>>();
  readonly #warn = loggedOnce();

  /** How the running helper starts commands, once it said it is ready; else null. */
  get spawner(): HelperSpawner | null {
    return this.#process === null ? null : (this.#spawners.get(this.#process) ?? null);
  }

  /**
   * Sends the running helper away now if it has no command, as the idle timer would; the next
   * command starts a new one (which reads `DEPUTY_VFORK_SPAWN` again). False when it has commands.
   */
  retire(): boolean {
    const helper = this.#process;
    if (helper === null) return true;
    for (const entry of this.#entries.values()) if (entry.helper === helper) return false;
    clearTimeout(this.#idleTimer);
    this.#process = null;
    this.#retired.add(helper);
    helper.disconnect();
    return true;
  }

  /** Starts the helper if it is not running, so the next command does not wait for it. */
  warm(): void {
    if (!this.#isDisabled) this.#ensure();
  }

  /** Starts `request` in the helper; null when the helper is unavailable (spawn it here). */
  spawn(request: HelperSpawnRequest): Promise<HelperChild | HelperSpawnFailure | null> {
    const helper = this.#isDisabled ? null : this.#ensure();
    if (helper === null) return Promise.resolve(null);
    const id = this.#nextId++;
    let exit!: (exit: HelperExit) => void;
    const exited = new Promise<HelperExit>((resolve) => (exit = resolve));
    let closeOutputs!: () => void;
    const outputsClosed = new Promise<void>((resolve) => (closeOutputs = resolve));
    const tell = (message: Record<string, unknown>): void => this.#post(helper, { ...message, id });
    const child: HelperChild = {
      pid: 0,
      exited,
      outputsClosed,
      write: (data) => tell({ t: 'in', d: typeof data === 'string' ? Buffer.from(data) : data }),
      closeStdin: () => tell({ t: 'inEnd' }),
      pause: () => tell({ t: 'pause' }),
      resume: () => tell({ t: 'resume' }),
      dispose: () => {
        tell({ t: 'dispose' });
        const entry = this.#entries.get(id);
        if (entry === undefined) return;
        entry.isDisposed = true;
        entry.closeOutputs();
        if (entry.hasExited) this.#forget(id);
      },
    };
    const started = new Promise<HelperChild | HelperSpawnFailure | null>((resolve) => {
      const entry: Entry = {
        helper,
        request,
        child,
        started: (outcome) => {
          entry.isStarted = true;
          resolve(outcome);
        },
        isStarted: false,
        isDisposed: false,
        hasExited: false,
        exit: (value) => {
          entry.hasExited = true;
          exit(value);
        },
        openOutputs: 2,
        closeOutputs,
      };
      this.#entries.set(id, entry);
    });
    this.#busy(helper);
    this.#post(helper, { t: 'spawn', id, file: request.file, args: request.args, cwd: request.cwd, env: request.env, stdin: request.stdin });
    return started;
  }

  /**
   * Queues `message` for the helper; the messages of one turn of the event loop leave as one batch
   * (a burst of commands costs the helper one read, not one per command).
   */
  #post(helper: ChildProcess, message: Record<string, unknown>): void {
    if (!helper.connected) return;
    let outbox = this.#outboxes.get(helper);
    if (outbox === undefined) {
      outbox = [];
      this.#outboxes.set(helper, outbox);
      setImmediate(this.#flush, helper);
    }
    outbox.push(message);
  }

  readonly #flush = (helper: ChildProcess): void => {
    const batch = this.#outboxes.get(helper) ?? [];
    this.#outboxes.delete(helper);
    if (!helper.connected || batch.length === 0) return;
    helper.send(batch.length === 1 ? (batch[0] as Record<string, unknown>) : { t: 'batch', m: batch }, undefined, {}, (error) => {
      if (error) this.#onGone(helper, `the spawn helper could not be reached (${error.message})`);
    });
  };

  #ensure(): ChildProcess | null {
    if (this.#process !== null) return this.#process;
    let helper: ChildProcess;
    try {
      // An empty environment and no Node options: the user's NODE_OPTIONS are for the server.
      helper = spawn(process.execPath, ['--single-threaded', '-e', HELPER_PROGRAM, vforkSpawnAddon() ?? ''], {
        env: {},
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        serialization: 'advanced',
      });
    } catch (error) {
      this.#disable(`the spawn helper could not start (${(error as Error).message})`);
      return null;
    }
    this.#process = helper;
    helper.on('error', (error) => this.#onGone(helper, `the spawn helper failed (${error.message})`));
    helper.once('exit', (code, signal) => this.#onGone(helper, `the spawn helper exited (${signal ?? `code ${code}`})`));
    helper.on('message', (raw: unknown) => this.#onMessage(helper, raw));
    const startTimer = setTimeout(() => {
      if (!this.#ready.has(helper) && helper.exitCode === null && helper.signalCode === null) {
        this.#disable('the spawn helper did not start in time');
        helper.kill('SIGKILL');
      }
    }, HELPER_START_TIMEOUT_MS);
    startTimer.unref();
    this.#idle(helper);
    return helper;
  }

  #onMessage(helper: ChildProcess, raw: unknown): void {
    if ((raw as { t?: unknown } | null)?.t === 'batch') {
      const batch = helperBatch.safeParse(raw);
      if (batch.success) for (const each of batch.data.m) this.#onMessage(helper, each);
      return;
    }
    const parsed = helperMessage.safeParse(raw);
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.t === 'ready') {
      this.#ready.add(helper);
      this.#spawners.set(helper, message.spawner ?? 'fork');
      return;
    }
    const entry = this.#entries.get(message.id);
    if (entry === undefined || entry.helper !== helper) return;
    switch (message.t) {
      case 'fail':
        this.#forget(message.id);
        entry.started(new HelperSpawnFailure(message.message, message.errno ?? undefined));
        return;
      case 'started':
        entry.pid = message.pid;
        entry.child.pid = message.pid;
        entry.started(entry.child);
        return;
      case 'out':
        if (entry.isDisposed) return;
        entry.request.onOutput(message.s, Buffer.from(message.d.buffer, message.d.byteOffset, message.d.byteLength));
        return;
      case 'eof':
        if (--entry.openOutputs === 0) {
          entry.closeOutputs();
          if (entry.hasExited) this.#forget(message.id);
        }
        return;
      case 'exit':
        entry.exit({ exitCode: message.code, signal: message.signal });
        if (entry.openOutputs === 0 || entry.isDisposed) this.#forget(message.id);
        return;
    }
  }

  #forget(id: number): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    entry.closeOutputs();
    if (this.#process === entry.helper) this.#idle(entry.helper);
  }

  /** Keeps this process alive while the helper owes an answer. */
  #busy(helper: ChildProcess): void {
    clearTimeout(this.#idleTimer);
    helper.ref();
    (helper.channel as { ref?: () => void } | null | undefined)?.ref?.();
  }

  /** Lets this process go when nothing is owed, and sends the helper away after a while. */
  #idle(helper: ChildProcess): void {
    for (const entry of this.#entries.values()) if (entry.helper === helper) return;
    helper.unref();
    (helper.channel as { unref?: () => void } | null | undefined)?.unref?.();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#process === helper) this.retire();
    }, HELPER_IDLE_MS);
    this.#idleTimer.unref();
  }

  /** The helper went away: see the module comment. */
  #onGone(helper: ChildProcess, why: string): void {
    if (this.#process === helper) this.#process = null;
    if (this.#retired.has(helper)) return;
    const neverRan = !this.#ready.has(helper);
    if (neverRan) this.#disable(why);
    for (const [id, entry] of [...this.#entries]) {
      if (entry.helper !== helper) continue;
      this.#forget(id);
      if (entry.pid !== undefined) signalProcessGroup(entry.pid, 'SIGKILL');
      if (!entry.isStarted) entry.started(neverRan ? null : new HelperSpawnFailure(`${why} before the command started`, undefined));
      else if (!entry.hasExited) entry.exit({ exitCode: null, signal: 'SIGKILL' });
    }
  }

  #disable(why: string): void {
    this.#isDisabled = true;
    this.#warn(why);
  }
}

let shared: SpawnHelper | null = null;

/** This process's helper, or null when `DEPUTY_SPAWN_HELPER=0` turned it off. */
function helper(): SpawnHelper | null {
  if (process.env.DEPUTY_SPAWN_HELPER === '0') return null;
  shared ??= new SpawnHelper();
  return shared;
}

/**
 * Starts `request` through the helper: the child, the helper's refusal (as Node worded it), or
 * null when the helper is off or unavailable and the caller must spawn here.
 */
export function spawnThroughHelper(request: HelperSpawnRequest): Promise<HelperChild | HelperSpawnFailure | null> {
  return helper()?.spawn(request) ?? Promise.resolve(null);
}

/** Sends this process's helper away if it is idle (see `SpawnHelper.retire`). */
export function retireSpawnHelper(): boolean {
  return shared?.retire() ?? true;
}

/** How this process's helper starts commands (null while none is running and ready). */
export function helperSpawner(): HelperSpawner | null {
  return shared?.spawner ?? null;
}

/** Starts the helper ahead of the first command (a turn that may run commands is starting). */
export function warmSpawnHelper(): void {
  helper()?.warm();
}
