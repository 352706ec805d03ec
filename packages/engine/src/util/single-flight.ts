/**
 * Single flight: callers asking for the same key while a run is in progress share that run's
 * promise; once it settles (fulfilled or rejected) it is forgotten, so a later call runs again
 * and sees fresh state. Skill and hook discovery use it so that many turns starting at once in
 * one directory scan it once, while an edit made after a scan shows on the next call.
 */
export class SingleFlight<K, V> {
  private readonly inFlight = new Map<K, Promise<V>>();

  /** The running promise for `key`, or `start()`'s, shared until it settles. */
  run(key: K, start: () => Promise<V>): Promise<V> {
    const running = this.inFlight.get(key);
    if (running !== undefined) return running;
    const flight = start().finally(() => {
      if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
    });
    this.inFlight.set(key, flight);
    return flight;
  }
}
