/**
 * When each guild is swept: its slot is hash(guildId) mod the interval, so the guilds are spread
 * evenly over the interval and a restart (or a new replica) keeps every guild's time — no burst
 * at start-up. A slot number names one occurrence (the lease key: one sweep per guild per slot).
 */
import { createHash } from 'node:crypto';

/** Milliseconds into each interval at which this guild is swept (stable across processes). */
export function slotOffset(guildId: string, intervalMs: number): number {
  const digest = createHash('sha256').update(guildId).digest();
  // 48 bits are plenty to spread any interval up to years in milliseconds evenly.
  return digest.readUIntBE(0, 6) % intervalMs;
}

/** The occurrence due at or before `now` (its number and time). */
export function currentSlot(offset: number, intervalMs: number, now: number): { slot: number; at: number } {
  const slot = Math.floor((now - offset) / intervalMs);
  return { slot, at: slot * intervalMs + offset };
}

/** The first occurrence strictly after `now`. */
export function nextDue(offset: number, intervalMs: number, now: number): number {
  return currentSlot(offset, intervalMs, now).at + intervalMs;
}

/**
 * Whether the occurrence of `offset` falls in (from, to]: the guilds a tick covering that span
 * must sweep. Spans longer than the interval cover every guild once (a stalled event loop).
 */
export function dueBetween(offset: number, intervalMs: number, from: number, to: number): boolean {
  if (to <= from) return false;
  if (to - from >= intervalMs) return true;
  return currentSlot(offset, intervalMs, to).at > from;
}
