/**
 * The engine keeps times in milliseconds (`startedAtMs`, `atMs`, `durationMs`, …); front doors
 * that report whole seconds (Unix timestamps, durations) convert them here, so both round the
 * same way (down). Pure.
 */

/** Milliseconds → whole seconds, rounded down (a Unix timestamp or a duration alike). */
export function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
