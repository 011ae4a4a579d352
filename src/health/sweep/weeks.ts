/** ISO weeks in UTC: the digest's schedule (a weekday and an hour) and its once-a-week key. */
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Monday 00:00 UTC of the ISO week holding `ms`. */
export function weekStart(ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  // 1970-01-01 was a Thursday: ISO weekday index 3 (Monday 0).
  const weekday = (((day + 3) % 7) + 7) % 7;
  return (day - weekday) * DAY_MS;
}

/** `2026-W48`. */
export function isoWeek(ms: number): string {
  const thursday = weekStart(ms) + 3 * DAY_MS;
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/**
 * Whether `week`'s digest is behind the last one posted: that week itself, or an earlier one
 * (a clock set back, a host whose clock lags its peer's). ISO week ids (`2026-W48`) sort as text.
 */
export function postedAlready(lastWeek: string | undefined, week: string): boolean {
  return lastWeek !== undefined && week <= lastWeek;
}

/** The digest time of the week holding `ms` (day 0 = Monday, hour in UTC). */
function scheduledIn(ms: number, day: number, hour: number): number {
  return weekStart(ms) + day * DAY_MS + hour * HOUR_MS;
}

/** The first digest time strictly after `now`. */
export function nextDigestAt(day: number, hour: number, now: number): number {
  const at = scheduledIn(now, day, hour);
  return at > now ? at : at + 7 * DAY_MS;
}

/** A missed digest is still posted this long after its time; later it is skipped. */
export const DIGEST_LATE_MS = 6 * HOUR_MS;

/** The digest time that is due now (passed less than DIGEST_LATE_MS ago), if any. */
export function dueDigest(day: number, hour: number, now: number): { at: number; week: string } | undefined {
  for (const at of [scheduledIn(now, day, hour), scheduledIn(now, day, hour) - 7 * DAY_MS]) {
    if (at <= now && now - at <= DIGEST_LATE_MS) return { at, week: isoWeek(at) };
  }
  return undefined;
}
