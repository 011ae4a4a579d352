/**
 * The registry and its exposition: every feedbot_* metric with its type and labels, what each
 * hook's events do to it, bounded labels (never a key, guild, user or interaction id), and
 * `promtool check metrics` on the result.
 */
import { register as globalRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ResponseEvent } from '../../src/api/response-events.js';
import type { InteractionRecord } from '../../src/interactions/interaction-record.js';
import { BotMetrics } from '../../src/ops/metrics.js';
import { LowestInWindow } from '../../src/ops/lowest-in-window.js';
import { find, parseExposition, prometheusTool, promtoolCheck, sum, type Exposition } from './prom-text.js';

const GUILD = '1100000000000000001';
const USER = '1400000000000000001';
const KEY = 'fbk_TestKeyForUnitTests_9f3Kq2';

function record(overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  return {
    interactionId: '1600000000000000001',
    guildId: GUILD,
    userId: USER,
    kind: 'command',
    command: 'feed',
    subcommand: 'list',
    label: 'feed list',
    outcome: 'ok',
    level: 'info',
    upstreamStatus: 200,
    latencyMs: 180,
    ackLatencyMs: 150,
    deferred: false,
    missedDeadline: false,
    ...overrides,
  };
}

function response(overrides: Partial<ResponseEvent> = {}): ResponseEvent {
  return { kind: 'status', status: 200, route: 'listFeeds', method: 'GET', attempt: 1, retrying: false, latencyMs: 40, remaining: 97, joined: false, ...overrides } as ResponseEvent;
}

async function scrape(m: BotMetrics): Promise<{ text: string; e: Exposition }> {
  const { body } = await m.scrape();
  return { text: body, e: parseExposition(body) };
}

/** Every metric of ours: type and label names (histogram buckets add `le`). */
const FAMILIES: Record<string, [type: string, labels: string[]]> = {
  feedbot_interactions_total: ['counter', ['kind', 'command', 'subcommand', 'outcome']],
  feedbot_ready: ['gauge', []],
  feedbot_interaction_ack_seconds: ['histogram', ['kind', 'command', 'subcommand']],
  feedbot_interaction_duration_seconds: ['histogram', ['kind', 'command', 'subcommand']],
  feedbot_interaction_deferrals_total: ['counter', ['kind', 'command', 'subcommand']],
  feedbot_interaction_missed_deadlines_total: ['counter', ['kind', 'command', 'subcommand']],
  feedbot_interactions_in_flight: ['gauge', []],
  feedbot_api_requests_total: ['counter', ['route', 'status']],
  feedbot_api_request_duration_seconds: ['histogram', ['route']],
  feedbot_api_retries_total: ['counter', ['route']],
  feedbot_api_rate_gate_refusals_total: ['counter', ['route']],
  feedbot_api_remaining_budget: ['histogram', []],
  feedbot_api_remaining_budget_lowest: ['gauge', ['window']],
  feedbot_feeds_cache_lookups_total: ['counter', ['use', 'result']],
  feedbot_key_store_operations_total: ['counter', ['op', 'outcome']],
  feedbot_key_store_operation_duration_seconds: ['histogram', ['op']],
  feedbot_gateway_shard_status: ['gauge', ['shard']],
  feedbot_gateway_heartbeat_seconds: ['gauge', ['shard']],
  feedbot_guilds_forgotten_total: ['counter', ['reason']],
  // Unlabelled, or with known label values (zeroed), so exposed at 0 from the start; the sweeps'
  // changes and audit posts, by kind, appear with their first sample.
  feedbot_digests_posted_total: ['counter', []],
  feedbot_health_sweeps_total: ['counter', ['result']],
  feedbot_http_interaction_requests_total: ['counter', ['outcome']],
  feedbot_interaction_claims_total: ['counter', ['outcome']],
  feedbot_interaction_claim_seconds: ['histogram', []],
  feedbot_http_interaction_response_seconds: ['histogram', []],
};

function familyOf(sample: string): string {
  return Object.keys(FAMILIES).find((f) => sample === f || sample === `${f}_bucket` || sample === `${f}_sum` || sample === `${f}_count`) ?? sample;
}

/** Feeds one of every event to a fresh registry. */
function busyMetrics(now: () => number = Date.now): BotMetrics {
  const m = new BotMetrics({ now });
  m.onInteraction(record());
  m.onInteraction(record({ kind: 'button', command: 'feed', subcommand: 'delete', deferred: true, ackLatencyMs: 1600, latencyMs: 2400 }));
  m.onInteraction(record({ command: 'stats', subcommand: 'none', outcome: 'discord_error', ackLatencyMs: null, missedDeadline: true }));
  m.onResponse(response());
  m.onResponse(response({ kind: 'status', status: 503, route: 'getStats', retrying: true, remaining: 12 }));
  m.onResponse(response({ kind: 'timeout', route: 'getStats', attempt: 2, remaining: null } as Partial<ResponseEvent>));
  m.onResponse(response({ kind: 'refused', resetAt: new Date(), route: 'listPosts', latencyMs: 0, remaining: 0 } as Partial<ResponseEvent>));
  m.onCacheLookup({ use: 'autocomplete', hit: true });
  m.onCacheLookup({ use: 'autocomplete', hit: false });
  m.onKeyStoreOperation({ op: 'get', outcome: 'ok', durationMs: 0.2 });
  m.onKeyStoreOperation({ op: 'set', outcome: 'storage', durationMs: 12 });
  m.watch({ gateway: { shards: new Map([[0, { status: 0, ping: 42 }], [1, { status: 1, ping: -1 }]]) }, inFlight: () => 3 });
  m.onHttpRequest({ outcome: 'answered', latencyMs: 40 });
  m.onHttpRequest({ outcome: 'bad_signature', latencyMs: 1 });
  m.onGuildForgotten({ guildId: GUILD, reason: 'removed' });
  m.onClaim({ interactionId: '1300000000000000001', outcome: 'won', durationMs: 0.4 });
  m.onClaim({ interactionId: '1300000000000000002', outcome: 'lost', durationMs: 0.6 });
  m.onClaim({ interactionId: '1300000000000000003', outcome: 'unavailable', durationMs: 500 });
  return m;
}

describe('the metrics registry', () => {
  it('starts the outcomes the alert rules count one by one at 0, so increase() sees their first event', async () => {
    const { e } = await scrape(new BotMetrics({ defaultMetrics: false }));
    const at = (name: string, labels: Record<string, string>) => find(e, name).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    for (const op of ['get', 'set', 'delete', 'audit', 'ping'])
      for (const outcome of ['ok', 'unreadable', 'invalid_input', 'storage', 'closed', 'error'])
        expect(at('feedbot_key_store_operations_total', { op, outcome }).map((s) => s.value), `${op} ${outcome}`).toEqual([0]);
    expect(find(e, 'feedbot_interaction_claims_total').map((s) => [s.labels.outcome, s.value])).toEqual([
      ['won', 0],
      ['lost', 0],
      ['unavailable', 0],
    ]);
    expect(find(e, 'feedbot_health_sweeps_total').map((s) => s.labels.result)).toEqual(['ok', 'unauthorized', 'forbidden', 'error', 'deferred', 'no_audit_channel', 'no_key', 'claimed_elsewhere']);
    expect(find(e, 'feedbot_guilds_forgotten_total').map((s) => [s.labels.reason, s.value])).toEqual([
      ['removed', 0],
      ['command', 0],
    ]);
    // Open-ended labels (routes, statuses, commands) still appear with their first increment.
    expect(find(e, 'feedbot_api_requests_total')).toEqual([]);
    expect(find(e, 'feedbot_interactions_total')).toEqual([]);
  });

  it('exposes every feedbot metric with its type and only its declared labels', async () => {
    const { e } = await scrape(busyMetrics());
    for (const [name, [type]] of Object.entries(FAMILIES)) expect(e.types.get(name), name).toBe(type);
    const ours = e.samples.filter((s) => s.name.startsWith('feedbot_'));
    expect(new Set(ours.map((s) => familyOf(s.name)))).toEqual(new Set(Object.keys(FAMILIES)));
    for (const s of ours) {
      const allowed = [...FAMILIES[familyOf(s.name)]![1], ...(s.name.endsWith('_bucket') ? ['le'] : [])];
      expect(Object.keys(s.labels).sort(), s.name).toEqual([...allowed].sort());
    }
  });

  it('never labels by key, guild, user or interaction: label values stay bounded', async () => {
    const { text, e } = await scrape(busyMetrics());
    expect(text).not.toContain(KEY);
    for (const s of e.samples.filter((x) => x.name.startsWith('feedbot_'))) {
      for (const value of Object.values(s.labels)) expect(value, s.name).not.toMatch(/^\d{17,20}$/);
    }
    const m = new BotMetrics({ defaultMetrics: false });
    m.onInteraction(record({ outcome: 'Something <script> with spaces' }));
    m.onResponse(response({ kind: 'status', status: 999 }));
    const odd = (await scrape(m)).e;
    expect(find(odd, 'feedbot_interactions_total')[0]!.labels.outcome).toBe('other');
    expect(find(odd, 'feedbot_api_requests_total')[0]!.labels.status).toBe('other');
  });

  it('counts interactions by command, subcommand and outcome, with both latencies, deferrals and missed deadlines', async () => {
    const { e } = await scrape(busyMetrics());
    expect(sum(e, 'feedbot_interactions_total', { kind: 'command', command: 'feed', subcommand: 'list', outcome: 'ok' })).toBe(1);
    expect(sum(e, 'feedbot_interactions_total', { command: 'stats', subcommand: 'none', outcome: 'discord_error' })).toBe(1);
    expect(sum(e, 'feedbot_interaction_ack_seconds_count')).toBe(2); // none for the one never acknowledged
    expect(sum(e, 'feedbot_interaction_ack_seconds_bucket', { kind: 'button', le: '1.5' })).toBe(0);
    expect(sum(e, 'feedbot_interaction_ack_seconds_bucket', { kind: 'button', le: '2' })).toBe(1);
    expect(sum(e, 'feedbot_interaction_duration_seconds_count')).toBe(3);
    expect(find(e, 'feedbot_interaction_deferrals_total')).toEqual([{ name: 'feedbot_interaction_deferrals_total', labels: { kind: 'button', command: 'feed', subcommand: 'delete' }, value: 1 }]);
    expect(sum(e, 'feedbot_interaction_missed_deadlines_total', { command: 'stats' })).toBe(1);
    expect(sum(e, 'feedbot_interactions_in_flight')).toBe(3);
  });

  it('counts interaction claims by outcome, with their duration, never by interaction id', async () => {
    const { e, text } = await scrape(busyMetrics());
    expect(find(e, 'feedbot_interaction_claims_total').map((s) => [s.labels.outcome, s.value])).toEqual([
      ['won', 1],
      ['lost', 1],
      ['unavailable', 1],
    ]);
    expect(sum(e, 'feedbot_interaction_claim_seconds_count')).toBe(3);
    expect(sum(e, 'feedbot_interaction_claim_seconds_bucket', { le: '0.001' })).toBe(2);
    expect(text).not.toContain('1300000000000000001');
  });

  it('counts feed API attempts by route and status, retries, local refusals and the remaining budget; a joined GET is not a request', async () => {
    const m = busyMetrics();
    m.onResponse(response({ joined: true }));
    const { e } = await scrape(m);
    expect(sum(e, 'feedbot_api_requests_total', { route: 'listFeeds', status: '200' })).toBe(1);
    expect(sum(e, 'feedbot_api_requests_total', { route: 'getStats', status: '503' })).toBe(1);
    expect(sum(e, 'feedbot_api_requests_total', { route: 'getStats', status: 'timeout' })).toBe(1);
    expect(sum(e, 'feedbot_api_request_duration_seconds_count')).toBe(3);
    expect(sum(e, 'feedbot_api_retries_total', { route: 'getStats' })).toBe(1);
    expect(sum(e, 'feedbot_api_rate_gate_refusals_total', { route: 'listPosts' })).toBe(1);
    expect(sum(e, 'feedbot_api_remaining_budget_count')).toBe(2); // answers with rate headers only
    expect(sum(e, 'feedbot_api_remaining_budget_bucket', { le: '25' })).toBe(1);
    // The refusal says the budget is spent: the lowest in the window is 0.
    expect(find(e, 'feedbot_api_remaining_budget_lowest')).toEqual([{ name: 'feedbot_api_remaining_budget_lowest', labels: { window: '60s' }, value: 0 }]);
  });

  it('the lowest remaining budget covers the last minute and is absent when nothing taught one', async () => {
    let now = 1_000_000;
    const m = new BotMetrics({ defaultMetrics: false, now: () => now });
    expect(find((await scrape(m)).e, 'feedbot_api_remaining_budget_lowest')).toEqual([]);
    m.onResponse(response({ remaining: 4 }));
    now += 30_000;
    m.onResponse(response({ remaining: 60 }));
    expect(sum((await scrape(m)).e, 'feedbot_api_remaining_budget_lowest')).toBe(4);
    now += 40_000;
    expect(sum((await scrape(m)).e, 'feedbot_api_remaining_budget_lowest')).toBe(60);
    now += 70_000;
    expect(find((await scrape(m)).e, 'feedbot_api_remaining_budget_lowest')).toEqual([]);
  });

  it('counts cache lookups, key store operations, and reads the gateway at scrape time', async () => {
    const shards = new Map([[0, { status: 1, ping: -1 }]]);
    const m = busyMetrics();
    m.watch({ gateway: { shards } });
    let { e } = await scrape(m);
    expect(sum(e, 'feedbot_feeds_cache_lookups_total', { use: 'autocomplete', result: 'hit' })).toBe(1);
    expect(sum(e, 'feedbot_feeds_cache_lookups_total', { use: 'autocomplete', result: 'miss' })).toBe(1);
    expect(sum(e, 'feedbot_key_store_operations_total', { op: 'set', outcome: 'storage' })).toBe(1);
    expect(sum(e, 'feedbot_key_store_operation_duration_seconds_count', { op: 'get' })).toBe(1);
    expect(find(e, 'feedbot_gateway_shard_status')).toEqual([{ name: 'feedbot_gateway_shard_status', labels: { shard: '0' }, value: 1 }]);
    expect(find(e, 'feedbot_gateway_heartbeat_seconds')).toEqual([]); // no heartbeat yet
    shards.set(0, { status: 0, ping: 42 });
    ({ e } = await scrape(m));
    expect(sum(e, 'feedbot_gateway_shard_status', { shard: '0' })).toBe(0);
    expect(sum(e, 'feedbot_gateway_heartbeat_seconds', { shard: '0' })).toBeCloseTo(0.042);
  });

  it('has its own registry with Node default metrics, and leaves the global one alone', async () => {
    const { e, text } = await scrape(busyMetrics());
    expect(e.types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(e.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(text).not.toMatch(/^nodejs_active_handles_total /m);
    expect(globalRegistry.getSingleMetric('feedbot_interactions_total')).toBeUndefined();
    // Two registries side by side (tests, or two bots in one process) do not clash.
    expect(() => new BotMetrics()).not.toThrow();
  });

  const promtool = prometheusTool('promtool', 'promtool check metrics on the exposition');
  it.skipIf(promtool.skip)('passes `promtool check metrics`', async () => {
    const { text } = await scrape(busyMetrics());
    const result = await promtoolCheck(promtool.path(), text);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });
});

describe('LowestInWindow', () => {
  it('keeps the minimum of the window in constant memory', () => {
    let now = 0;
    const w = new LowestInWindow(60_000, () => now);
    expect(w.lowest()).toBeUndefined();
    for (let i = 0; i < 10_000; i++) {
      now += 100;
      w.observe(50 + (i % 7));
    }
    expect(w.lowest()).toBe(50);
    expect((w as unknown as { slots: Map<number, number> }).slots.size).toBeLessThanOrEqual(13);
    now += 61_000 + 5_000;
    expect(w.lowest()).toBeUndefined();
  });
});
