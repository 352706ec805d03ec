/**
 * Racing a promise against an abort signal: the one helper the turn loop, the review and the
 * approval requests use to stop waiting at once when a turn is interrupted. It only stops the
 * waiting; whatever the promise stands for winds down on its own under the same signal.
 */

/**
 * Settles like `promise`, or rejects with `signal.reason` as soon as `signal` aborts (at once
 * when it already has). The abort listener is removed when `promise` settles.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
