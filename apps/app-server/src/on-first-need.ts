/**
 * A part of the server that is loaded once, when something first needs it (the full method
 * tables, the engine). Everyone who asks while it loads gets the same promise, so they resume in
 * the order they asked; it settles with null, or with the error, and never rejects. A failed
 * attempt is forgotten, so the next request tries again.
 */

/** See the module comment. */
export class OnFirstNeed<T> {
  #value: T | null = null;
  #attempt: Promise<unknown> | null = null;

  /** `load` makes the part; `onError` hears about each failed attempt. */
  constructor(
    private readonly load: () => Promise<T>,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** The part, once loaded. */
  get value(): T | null {
    return this.#value;
  }

  /** The attempt under way or the one that succeeded (null before the first and after a failure). */
  get attempt(): Promise<unknown> | null {
    return this.#attempt;
  }

  /** Starts loading unless it is loaded or loading; settles with null, or with the error. */
  start(): Promise<unknown> {
    this.#attempt ??= this.load().then(
      (value) => {
        this.#value = value;
        return null;
      },
      (error: unknown) => {
        this.#attempt = null;
        this.onError(error);
        return error;
      },
    );
    return this.#attempt;
  }
}
