/**
 * Smoke test of the benchmark harness (`npm run bench`): scenario 2 at a tiny size, end to end
 * (sandbox worker over HTTPS, the real bot, the naive baseline, the sandbox's own request count).
 * It checks what is counted, never how fast anything was.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../../bench/scenarios/2-autocomplete-storm.js';

describe('bench scenario 2 (autocomplete storm), tiny', () => {
  it('counts upstream requests on both sides and reports every metric with its baseline', async () => {
    const result = await run({ quick: true, log: () => undefined, overrides: { count: 24, windowMs: 1_500, warmup: 2 } });
    expect(result.error).toBeUndefined();
    const metric = (name: string) => result.metrics.find((m) => m.name === name);
    // The bot fills its per-guild cache once and answers every other keystroke from it.
    expect(metric('upstream requests')).toMatchObject({ value: 1, baseline: 24, met: true });
    // Every query matches a feed: an empty answer would mean the list was not had.
    expect(metric('answers without choices')).toMatchObject({ value: 0, baseline: 0 });
    const p99 = metric('p99 dispatch→answer');
    expect(typeof p99?.value).toBe('number');
    expect(typeof p99?.baseline).toBe('number');
    expect(result.details.upstreamByStatus).toEqual({ bot: { '200': 1 }, naive: { '200': 24 } });
  }, 20_000);
});
