/**
 * Process groups on the host: signalling one, and telling whether anything in it still runs. A
 * command is the leader of its own group (pipes and PTYs alike), so these reach everything it
 * started that stayed in the group. Only Node built-ins and `/proc`; imported by both the spawn
 * paths (process.ts, spawn-helper.ts) and the child (child.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Sends `signal` to process group `pgid` (0: only checks it exists); false when it does not exist. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How long one reading of `/proc` answers for every group (kills waiting together share it). */
const SCAN_TTL_MS = 10;
/** The groups with a live member at the last reading of `/proc`, and when it was taken. */
let lastScan: { atMs: number; live: ReadonlySet<number> } | null = null;

/**
 * True while a process of group `pgid` is alive: running, sleeping or stopped, not a zombie. A
 * killed member whose parent exited is reparented to init and stays in the group as a zombie
 * until init reaps it, which some inits (container and micro-VM ones) do only every second or so;
 * such a group has nothing left to stop. Reads `/proc/<pid>/stat` of every process; a group found
 * alive by a reading less than `SCAN_TTL_MS` old is not read again (many commands killed at once
 * poll together), one found dead always is. Where `/proc` cannot be read, falls back to
 * {@link signalProcessGroup} (zombies then count as alive).
 */
export function groupHasLiveMember(pgid: number): boolean {
  if (!signalProcessGroup(pgid, 0)) return false;
  const now = performance.now();
  // A recent reading may say "alive" (the caller asks again later); "not alive" is read afresh,
  // as the group may have started after that reading.
  if (lastScan !== null && now - lastScan.atMs <= SCAN_TTL_MS && lastScan.live.has(pgid)) return true;
  const live = liveGroups();
  if (live === null) return true;
  lastScan = { atMs: now, live };
  return live.has(pgid);
}

/** The process groups that have a member that is not a zombie, or null when `/proc` cannot be read. */
function liveGroups(): Set<number> | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return null;
  }
  const live = new Set<number>();
  for (const pid of pids) {
    if (pid.charCodeAt(0) < 48 || pid.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      continue; // exited meanwhile
    }
    // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses, so split after the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z' && fields[0] !== 'X') live.add(Number(fields[2]));
  }
  return live;
}
