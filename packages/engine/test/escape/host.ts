/**
 * What the escape suite observes on the host, never through the model: processes found by an
 * argv marker in the host's /proc (with their environment), and datagrams arriving at a UDP
 * listener on the host loopback. Markers are numbers `sleep` accepts, unique per test process.
 * One guard reads the turn's events, not the model's text: a command refused before it ran (a
 * destructive-looking `rm -f` under policy `never`) would let a sandbox row pass untested.
 */
import dgram from 'node:dgram';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { EngineEvent, SandboxMode } from '@deputy/protocol';
import type { Step } from '@deputy/test-support';
import type { Thread } from '../../src/thread/thread.js';
import { CONFINED_TMP_TOML, SafetyHarness } from '../safety/harness.js';

let markerCounter = 0;
let settleCounter = 0;

/**
 * A `sleep` argument lasting about `seconds` whose digits identify one test: `<seconds>.<pid><n>`,
 * so `sleep <marker>` shows up in the host's process list under a name no other process has.
 */
export function sleepMarker(seconds: number): string {
  markerCounter += 1;
  return `${seconds}.${process.pid}${String(markerCounter).padStart(3, '0')}`;
}

/** A live (not zombie) host process whose argv is exactly `sleep <marker>`. */
export interface HostProcess {
  pid: number;
  /** Its environment from /proc/PID/environ, or null when the host may not read it. */
  environ: Record<string, string> | null;
}

function readEnviron(pid: string): Record<string, string> | null {
  try {
    const raw = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
    const env: Record<string, string> = {};
    for (const entry of raw.split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    return env;
  } catch {
    return null;
  }
}

/** The host's live processes running `sleep <marker>` (any PID namespace: /proc shows them all). */
export function sleepProcesses(marker: string): HostProcess[] {
  const found: HostProcess[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8') !== `sleep\0${marker}\0`) continue;
      const state = /\) (\S)/.exec(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))?.[1];
      if (state !== 'Z') found.push({ pid: Number(entry), environ: readEnviron(entry) });
    } catch {
      // The process exited while we looked.
    }
  }
  return found;
}

/** SIGKILLs leftovers of a test by PID (clean-up after a failed assertion). */
export function killSleepProcesses(marker: string): void {
  for (const { pid } of sleepProcesses(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** A UDP socket on the host loopback that counts what arrives. */
export interface UdpListener {
  readonly port: number;
  /** Payloads received so far, in order (without the markers `settle` sends). */
  readonly received: Buffer[];
  /**
   * Resolves once a marker datagram the host sends now has arrived. Loopback delivers in order, so
   * whatever reached the listener before the call has been received by then.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Binds a UDP listener on 127.0.0.1 at a free port. */
export async function listenUdp(): Promise<UdpListener> {
  const socket = dgram.createSocket('udp4');
  const received: Buffer[] = [];
  const markers = new Map<string, () => void>();
  socket.on('message', (message) => {
    const marker = markers.get(message.toString('latin1'));
    if (marker) marker();
    else received.push(message);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const port = socket.address().port;
  return {
    port,
    received,
    settle: async () => {
      settleCounter += 1;
      const marker = `deputy-escape-settle-${process.pid}-${settleCounter}`;
      const arrived = new Promise<void>((resolve) => markers.set(marker, resolve));
      const sender = dgram.createSocket('udp4');
      try {
        await new Promise<void>((resolve, reject) => sender.send(marker, port, '127.0.0.1', (error) => (error ? reject(error) : resolve())));
        await arrived;
      } finally {
        markers.delete(marker);
        sender.close();
      }
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/**
 * The commands of a turn that reached the sandbox: `commandExecution` items that completed as
 * `completed` or `failed`. A command refused before it ran (a reject emits no item; a declined
 * approval completes as `declined`) is not counted, so a row about what the sandbox stops can
 * check that every attack really ran and was not merely refused upstream.
 */
export function commandsThatRan(events: EngineEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === 'item.completed' && e.item.type === 'commandExecution' && (e.item.status === 'completed' || e.item.status === 'failed')
      ? [e.item.command]
      : [],
  );
}

/** Asserts that every `exec_command` call of the turn reached the sandbox (see {@link commandsThatRan}). */
export function expectEveryCommandRan(events: EngineEvent[]): void {
  const calls = events.filter((e) => e.type === 'model.item' && e.item.type === 'function_call' && e.item.name === 'exec_command').length;
  expect(commandsThatRan(events), 'every exec_command call reached the sandbox, none was refused upstream').toHaveLength(calls);
}

/** The three sandbox modes, and whether each confines a command. */
export const SANDBOX_MODES: { mode: SandboxMode; confined: boolean }[] = [
  { mode: 'workspace-write', confined: true },
  { mode: 'read-only', confined: true },
  { mode: 'danger-full-access', confined: false },
];

/** What `eachSandboxMode` gives each mode's tests. */
export interface SandboxModeCase {
  mode: SandboxMode;
  confined: boolean;
  /** `cannot <what>` under a confining mode, `can <what>` otherwise (test names). */
  can(what: string): string;
  /** The mode's harness (approval policy never, /tmp confined), open from the first test on. */
  harness(): SafetyHarness;
  /** Runs one turn of attacks and checks each exec_command reached the sandbox. */
  attack(thread: Thread, steps: Step[]): Promise<void>;
}

/**
 * Declares `body`'s tests once per sandbox mode, each mode with its own harness opened before its
 * tests and closed after them; danger-full-access is the control that proves each attack works.
 */
export function eachSandboxMode(body: (c: SandboxModeCase) => void): void {
  describe.each(SANDBOX_MODES)('with sandbox_mode = $mode', ({ mode, confined }) => {
    let h: SafetyHarness | undefined;
    beforeAll(async () => {
      h = await SafetyHarness.start({ approvalPolicy: 'never', sandbox: mode, extraToml: CONFINED_TMP_TOML });
    });
    afterAll(async () => {
      await h?.close();
    });
    const harness = (): SafetyHarness => {
      if (h === undefined) throw new Error('the harness opens in beforeAll');
      return h;
    };
    body({
      mode,
      confined,
      can: (what) => `${confined ? 'cannot' : 'can'} ${what}`,
      harness,
      attack: async (thread, steps) => expectEveryCommandRan((await harness().runTurn(thread, steps)).events),
    });
  });
}
