/**
 * The one bounded wait the tests share: poll a predicate until it returns a truthy value, and fail
 * with a message naming what was awaited when it does not in time. Use it for state that has no
 * event to wait on (a file appearing, a process group going away, a counter reaching a value);
 * where a message or an exit proves the state, wait on that instead.
 */

/** Values `waitFor` keeps polling on. */
type Falsy = false | 0 | '' | null | undefined;

/** How often `waitFor` polls. */
export const WAIT_FOR_INTERVAL_MS = 10;

/**
 * Polls `predicate` every {@link WAIT_FOR_INTERVAL_MS} until it returns a truthy value, and resolves
 * with that value. Rejects with `timed out after <timeoutMs> ms waiting for <what>` once
 * `timeoutMs` has passed; `what` may be a function, called only then (e.g. to add the output seen
 * so far). A predicate may be async; one that throws ends the wait with its error.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  timeoutMs = 10_000,
  what: string | (() => string) = 'a condition',
): Promise<Exclude<T, Falsy>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value as Exclude<T, Falsy>;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, WAIT_FOR_INTERVAL_MS));
  }
}
