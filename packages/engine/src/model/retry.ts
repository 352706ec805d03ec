/**
 * The retry loop around one model response. An attempt has two phases: the request (until the
 * provider accepts it and the stream opens) and the stream (until `completed`). Retryable
 * failures in each phase are retried up to their own limit, with exponential backoff and full
 * jitter unless the provider said how long to wait; a `retrying` event precedes each wait. An
 * idle watchdog abandons an attempt that goes quiet. Events of a failed attempt have already
 * been yielded, so a `retrying` event also tells the consumer to discard that attempt's partial
 * items. It knows nothing of wires or the SDK: attempts come in as functions.
 */
import { ConnectionError, ModelAbortedError, ModelApiError, StreamIdleTimeoutError } from './errors.js';
import type { ProviderConnection } from './provider.js';
import type { ModelStreamEvent } from './types.js';

/** Default first backoff step. */
export const DEFAULT_RETRY_BASE_DELAY_MS = 200;
/** Ceiling of one backoff step. */
const MAX_BACKOFF_MS = 30_000;
/** Ceiling of a provider-requested wait (`retry-after`). */
const MAX_RETRY_AFTER_MS = 120_000;

/** How one response is retried. */
export interface RetryPolicy {
  requestMaxRetries: number;
  streamMaxRetries: number;
  streamIdleTimeoutMs: number;
  retryBaseDelayMs: number;
  /** Source of jitter in [0, 1); injectable for tests. */
  random?: () => number;
}

/**
 * Opens one attempt. Resolves once the provider accepted the request; the iterable then yields,
 * per raw stream event, the (possibly empty) list of mapped events. It ends after the terminal
 * event and throws a `ModelApiError` for failures reported in the stream.
 */
export type OpenAttempt = (signal: AbortSignal) => Promise<AsyncIterable<ModelStreamEvent[]>>;

/** The retry policy a provider connection asks for. */
export function retryPolicyOf(provider: ProviderConnection): RetryPolicy {
  return {
    requestMaxRetries: provider.requestMaxRetries,
    streamMaxRetries: provider.streamMaxRetries,
    streamIdleTimeoutMs: provider.streamIdleTimeoutMs,
    retryBaseDelayMs: provider.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS,
  };
}

/** The wait before retry number `retry` (1-based): the provider's wish, else backoff with full jitter. */
export function retryDelayMs(retry: number, retryAfterMs: number | null, policy: RetryPolicy): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  const ceiling = Math.min(MAX_BACKOFF_MS, policy.retryBaseDelayMs * 2 ** (retry - 1));
  return Math.floor((policy.random ?? Math.random)() * ceiling);
}

/** Sleeps `ms`, rejecting with `ModelAbortedError` as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ModelAbortedError());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ModelAbortedError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Aborts an attempt when no activity was seen for `timeoutMs`, or when the caller aborts. */
class IdleWatchdog {
  readonly signal: AbortSignal;
  isExpired = false;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onParentAbort = (): void => this.controller.abort();

  constructor(
    private readonly parent: AbortSignal,
    timeoutMs: number,
  ) {
    this.signal = this.controller.signal;
    parent.addEventListener('abort', this.onParentAbort, { once: true });
    this.timer = setTimeout(() => {
      this.isExpired = true;
      this.controller.abort();
    }, timeoutMs);
  }

  /** Restarts the countdown. */
  touch(): void {
    this.timer.refresh();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.parent.removeEventListener('abort', this.onParentAbort);
  }
}

/** Streams one response through `open`, retrying per `policy`, until `completed` or a final error. */
export async function* streamWithRetry(open: OpenAttempt, policy: RetryPolicy, signal: AbortSignal): AsyncGenerator<ModelStreamEvent> {
  const used = { request: 0, stream: 0 };
  for (let attempt = 1; ; attempt += 1) {
    if (signal.aborted) throw new ModelAbortedError();
    const watchdog = new IdleWatchdog(signal, policy.streamIdleTimeoutMs);
    let phase: 'request' | 'stream' = 'request';
    let failure: ModelApiError;
    try {
      const batches = await open(watchdog.signal);
      phase = 'stream';
      watchdog.touch();
      for await (const batch of batches) {
        watchdog.touch();
        for (const event of batch) {
          yield event;
          if (event.type === 'completed') return;
        }
      }
      // The SDK ends the iteration quietly when its request is aborted, and a provider may
      // simply close the connection: either way the response never completed.
      throw new ConnectionError('The model stream closed before the response completed.');
    } catch (e) {
      if (signal.aborted) throw new ModelAbortedError();
      failure = watchdog.isExpired ? new StreamIdleTimeoutError(policy.streamIdleTimeoutMs) : ModelApiError.fromSdkError(e);
    } finally {
      watchdog.dispose();
    }
    const limit = phase === 'request' ? policy.requestMaxRetries : policy.streamMaxRetries;
    if (!failure.retryable || used[phase] >= limit) throw failure;
    used[phase] += 1;
    const delayMs = retryDelayMs(used[phase], failure.retryAfterMs, policy);
    yield { type: 'retrying', error: failure.toTurnError(), attempt: attempt + 1, delayMs };
    await abortableSleep(delayMs, signal);
  }
}
