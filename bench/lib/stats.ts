/**
 * Latency summaries. Percentiles use the nearest-rank method: p99 of 1,000 samples is the 990th
 * smallest, an actually observed value, never an interpolation between two.
 */

export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const mean = n === 0 ? Number.NaN : sorted.reduce((s, v) => s + v, 0) / n;
  return {
    n,
    mean,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: n === 0 ? Number.NaN : sorted[n - 1]!,
  };
}

/** Rounds for reports: 3 significant decimals below 10, fewer above. */
export function round(value: number, digits?: number): number {
  if (!Number.isFinite(value)) return value;
  const d = digits ?? (Math.abs(value) < 1 ? 4 : Math.abs(value) < 10 ? 3 : Math.abs(value) < 1000 ? 1 : 0);
  const f = 10 ** d;
  return Math.round(value * f) / f;
}

export function roundSummary(s: Summary): Summary {
  return { n: s.n, mean: round(s.mean), p50: round(s.p50), p90: round(s.p90), p99: round(s.p99), max: round(s.max) };
}

/** feedbot ÷ baseline, or null when either side is missing. */
export function ratio(value: number | null | undefined, baseline: number | null | undefined): number | null {
  if (value === null || value === undefined || baseline === null || baseline === undefined) return null;
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline === 0) return null;
  return round(value / baseline, 3);
}
