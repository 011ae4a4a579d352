/**
 * Listeners for one kind of report (interaction records, key store operations, cache lookups):
 * how the parts of the bot tell logs and metrics what happened without knowing about them. A
 * listener that throws changes nothing for the reporter or the other listeners; it leaves a
 * process warning.
 */
export type Listener<T> = (event: T) => void;

export class Observers<T> {
  private readonly listeners = new Set<Listener<T>>();

  /** `what` names the reports in the warning a throwing listener leaves. */
  constructor(private readonly what: string) {}

  /** Registers a listener; the returned function unsubscribes it. */
  add(listener: Listener<T>): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }

  emit(event: T): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        process.emitWarning(`${this.what} listener threw: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
