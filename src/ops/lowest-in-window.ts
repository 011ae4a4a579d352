/**
 * The lowest value observed over a sliding window, in constant memory: the window is cut into
 * slots that each keep their minimum, and slots older than the window are dropped. The answer
 * may include up to one slot's worth of older values, never fewer than the window's.
 */
const SLOTS = 12;

export class LowestInWindow {
  private readonly slotMs: number;
  /** Slot number (time / slotMs) → lowest value seen in it. */
  private readonly slots = new Map<number, number>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {
    this.slotMs = Math.max(1, Math.ceil(windowMs / SLOTS));
  }

  observe(value: number): void {
    const slot = Math.floor(this.now() / this.slotMs);
    const current = this.slots.get(slot);
    if (current === undefined || value < current) this.slots.set(slot, value);
    this.prune();
  }

  /** The lowest value observed in the window; undefined when there was none. */
  lowest(): number | undefined {
    this.prune();
    let lowest: number | undefined;
    for (const value of this.slots.values()) if (lowest === undefined || value < lowest) lowest = value;
    return lowest;
  }

  private prune(): void {
    const oldest = Math.floor((this.now() - this.windowMs) / this.slotMs);
    for (const slot of this.slots.keys()) if (slot < oldest) this.slots.delete(slot);
  }
}
