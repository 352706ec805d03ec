/** Host checks for tests that start processes: whether a PID is still alive. */

/** True while a process with this pid exists (signal 0 probes without touching it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
