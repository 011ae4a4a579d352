/**
 * Shares one asynchronous reading among concurrent callers without ever handing a caller a
 * reading that started before it asked: `read()` resolves with the result of a run of `fn` that
 * STARTED after the call. While a run is in flight, every new caller waits for the single next
 * run, so under load there is at most one run in flight and one queued, not one per caller.
 */
export class SharedReading<T> {
  private inFlight: Promise<T> | undefined;
  /** The run that starts when `inFlight` settles; shared by everyone who called meanwhile. */
  private queued: Promise<T> | undefined;

  constructor(private readonly fn: () => Promise<T>) {}

  read(): Promise<T> {
    if (this.queued) return this.queued;
    if (!this.inFlight) return this.start();
    const queued = this.inFlight
      .catch(() => undefined)
      .then(() => {
        if (this.queued === queued) this.queued = undefined;
        return this.start();
      });
    this.queued = queued;
    return queued;
  }

  /** Settles when no run is in flight or queued. */
  async idle(): Promise<void> {
    while (this.inFlight || this.queued) await Promise.allSettled([this.inFlight, this.queued]);
  }

  private start(): Promise<T> {
    const run = this.fn().finally(() => {
      if (this.inFlight === run) this.inFlight = undefined;
    });
    this.inFlight = run;
    return run;
  }
}
