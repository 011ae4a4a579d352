/**
 * Starts a labelled counter's known series at 0. A series that appears with its first increment
 * starts at 1, and Prometheus's `increase()` and `rate()` cannot see that first event: an alert on
 * "an unreadable key" or "a shard process restarted" would wait for the second one. Only for
 * labels whose values are known up front (outcomes, results, shard ids); routes, statuses and
 * commands still appear with their first increment.
 */
import type { Counter } from 'prom-client';

export function zeroed<T extends string>(counter: Counter<T>, series: Iterable<Partial<Record<T, string>>>): void {
  for (const labels of series) counter.inc(labels, 0);
}
