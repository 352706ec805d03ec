/**
 * A single-consumer async queue: producers `push` synchronously, one consumer iterates with
 * `for await`. It bridges event-style sources (sockets, streams) to the `AsyncIterable`s of the
 * transport contract, and reports when it holds more than `highWaterMark` items so the source can
 * pause (and resume once the consumer caught up). It never drops items.
 */

/** Options of {@link AsyncQueue}. */
export interface AsyncQueueOptions {
  /** Buffered items above which `onPause` fires; defaults to 1024. */
  highWaterMark?: number;
  /** Called once when the buffer goes above the high-water mark. */
  onPause?: () => void;
  /** Called once when the buffer is drained after a pause. */
  onResume?: () => void;
}

/** See the module comment. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiter: ((r: IteratorResult<T>) => void) | undefined;
  #ended = false;
  #paused = false;
  #iterated = false;
  readonly #options: AsyncQueueOptions;

  constructor(options: AsyncQueueOptions = {}) {
    this.#options = options;
  }

  /** Number of items waiting for the consumer. */
  get size(): number {
    return this.#items.length;
  }

  /** True once `end()` was called. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Adds an item; ignored after `end()`. */
  push(item: T): void {
    if (this.#ended) return;
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter({ value: item, done: false });
      return;
    }
    this.#items.push(item);
    if (!this.#paused && this.#items.length > (this.#options.highWaterMark ?? 1024)) {
      this.#paused = true;
      this.#options.onPause?.();
    }
  }

  /** Ends the iteration after the buffered items. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterated) throw new Error('AsyncQueue supports a single consumer');
    this.#iterated = true;
    return {
      next: () => {
        if (this.#items.length > 0) {
          const item = this.#items.shift() as T;
          if (this.#paused && this.#items.length === 0) {
            this.#paused = false;
            this.#options.onResume?.();
          }
          return Promise.resolve({ value: item, done: false });
        }
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiter = resolve;
        });
      },
      return: () => {
        this.end();
        this.#items.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/**
 * Yields `map(item)` for each item of `queue` (items it maps to undefined are skipped). In a
 * burst, while items are still queued, each next item waits for a turn of the event loop
 * (`setImmediate`), so a client that sends many frames at once (or a few megabytes in one read)
 * has them decoded and handled between the reads of other connections instead of in one block
 * that holds everybody else (docs/app-server.md "Limits").
 */
export async function* inTurns<T, U>(queue: AsyncQueue<T>, map: (item: T) => U | undefined): AsyncGenerator<U, void, undefined> {
  for await (const item of queue) {
    const mapped = map(item);
    if (mapped !== undefined) yield mapped;
    if (queue.size > 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
