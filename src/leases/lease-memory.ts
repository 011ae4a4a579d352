/** A lease in one process's memory, for tests and tools: nothing is shared with another process. */
import type { SlotLease } from './lease.js';

export class MemoryLease implements SlotLease {
  readonly kind = 'memory';
  private readonly held = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  claim(name: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    if ((this.held.get(name) ?? -Infinity) > now) return Promise.resolve(false);
    // Names carry their slot or id, so expired ones are never asked again: forget them as we go.
    if (this.held.size > 10_000) for (const [n, until] of this.held) if (until <= now) this.held.delete(n);
    this.held.set(name, now + ttlMs);
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
