/**
 * The hooks the metrics subscribe to, fired by the real router, API client and key store
 * (test/helpers/bot.ts): one record per interaction, the same one its log line is written from;
 * API response events; feeds cache lookups; key store operations — and all of them arriving in
 * the registry through instrument().
 */
import { describe, expect, it, vi } from 'vitest';
import type { CacheLookup } from '../../src/api/feeds-cache.js';
import type { InteractionRecord } from '../../src/interactions/interaction-record.js';
import type { KeyStoreOperation } from '../../src/keys/operations.js';
import { BotMetrics, instrument } from '../../src/ops/index.js';
import { createBotHarness, rl, sampleFeeds, sampleStats, type BotHarness, type HarnessOptions } from '../helpers/bot.js';
import { autocomplete, buttonPress, chatInput } from '../helpers/discord.js';
import { parseExposition, sum } from './prom-text.js';

async function withBot(opts: HarnessOptions, run: (h: BotHarness, records: InteractionRecord[]) => Promise<void>): Promise<void> {
  const h = await createBotHarness(opts);
  const records: InteractionRecord[] = [];
  h.router.onInteraction((r) => records.push(r));
  try {
    await h.setKey();
    await run(h, records);
  } finally {
    await h.close();
  }
}

const interactionLines = (h: BotHarness) => h.logs.filter((l) => l.msg === 'interaction');

describe('the interaction record', () => {
  it('is what the log line says, with bounded labels, both latencies and no missed deadline', () =>
    withBot({}, async (h, records) => {
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats(), { headers: rl() });
      await h.run(chatInput('stats', undefined));
      expect(records).toHaveLength(1);
      const [r] = records;
      expect(r).toMatchObject({ kind: 'command', command: 'stats', subcommand: 'none', label: 'stats', outcome: 'ok', upstreamStatus: 200, deferred: false, missedDeadline: false });
      expect(r!.ackLatencyMs).toBeGreaterThanOrEqual(0);
      expect(r!.latencyMs).toBeGreaterThanOrEqual(r!.ackLatencyMs!);
      const [line] = interactionLines(h);
      expect(line).toMatchObject({ command: 'stats', outcome: 'ok', upstreamStatus: 200, ackMs: Math.round(r!.ackLatencyMs!), latencyMs: Math.round(r!.latencyMs) });
      expect(line).not.toHaveProperty('missedDeadline');
    }));

  it('names subcommands and component actions from the route table, and anything else `unknown`', () =>
    withBot({}, async (h, records) => {
      h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
      await h.run(chatInput('feed', 'list'));
      await h.run(chatInput('weather', 'today'));
      await h.run(chatInput('feed', 'explode'));
      await h.run(buttonPress('feed:archive:1'));
      await h.run(buttonPress('weather:today:1'));
      expect(records.map((r) => [r.kind, r.command, r.subcommand, r.outcome])).toEqual([
        ['command', 'feed', 'list', 'ok'],
        ['command', 'unknown', 'unknown', 'unknown_command'],
        ['command', 'feed', 'unknown', 'unknown_command'],
        ['button', 'feed', 'unknown', 'user_error'],
        ['button', 'unknown', 'unknown', 'unknown_command'],
      ]);
      // The log line keeps the full label, as sent.
      expect(interactionLines(h).map((l) => l.command)).toEqual(['feed list', 'weather today', 'feed explode', 'button feed:archive', 'button weather:today']);
    }));

  it('a deferral is recorded as such', () =>
    withBot({ deferAfterMs: 20 }, async (h, records) => {
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats(), { headers: rl() }).delay(200);
      await h.run(chatInput('stats', undefined));
      expect(records[0]).toMatchObject({ deferred: true, missedDeadline: false, outcome: 'ok' });
      expect(records[0]!.ackLatencyMs).toBeLessThan(records[0]!.latencyMs);
    }));

  it('an acknowledgement later than 3 s after creation is a missed deadline', () => {
    let offset = 0;
    return withBot({ now: () => Date.now() + offset }, async (h, records) => {
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats(), { headers: rl() });
      const running = h.run(chatInput('stats', undefined));
      offset = 3_500; // the event loop "stalled" between receipt and the answer
      await running;
      expect(records[0]).toMatchObject({ missedDeadline: true, outcome: 'ok' });
      expect(interactionLines(h)[0]).toMatchObject({ missedDeadline: true });
    });
  });

  it('Discord refusing the acknowledgement with 10062 (Unknown interaction) is a missed deadline with no acknowledgement', () =>
    withBot({}, async (h, records) => {
      const rest = h.discord.client.rest as unknown as { options: { makeRequest: (url: string, init: RequestInit) => Promise<unknown> } };
      const original = rest.options.makeRequest;
      rest.options.makeRequest = async (url, init) =>
        url.includes('/callback')
          ? new Response(JSON.stringify({ message: 'Unknown interaction', code: 10062 }), { status: 404, headers: { 'content-type': 'application/json' } })
          : original(url, init);
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats(), { headers: rl() });
      await h.run(chatInput('stats', undefined));
      // The handler's own reply was refused: Discord's failure, at warn (the interaction expired), no ref.
      expect(records[0]).toMatchObject({ outcome: 'discord_error', level: 'warn', discord: { status: 404, code: 10062 }, ackLatencyMs: null, missedDeadline: true });
      expect(records[0]).not.toHaveProperty('ref');
      expect(interactionLines(h)[0]).toMatchObject({ missedDeadline: true });
      expect(interactionLines(h)[0]).not.toHaveProperty('ackMs');
    }));

  it('autocomplete is recorded with its command and subcommand; its choices are the acknowledgement', () =>
    withBot({}, async (h, records) => {
      h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
      await h.run(autocomplete('feed', 'delete', { id: '' }, 'id'));
      expect(records[0]).toMatchObject({ kind: 'autocomplete', command: 'feed', subcommand: 'delete', label: 'feed (autocomplete)', outcome: 'ok', missedDeadline: false });
      expect(records[0]!.ackLatencyMs).not.toBeNull();
    }));

  it('a listener that throws changes nothing for the interaction or the other listeners', () =>
    withBot({}, async (h, records) => {
      const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      h.router.onInteraction(() => {
        throw new Error('broken observer');
      });
      const after: string[] = [];
      h.router.onInteraction((r) => after.push(r.outcome));
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats(), { headers: rl() });
      await h.run(chatInput('stats', undefined));
      expect(records).toHaveLength(1);
      expect(after).toEqual(['ok']);
      expect(h.discord.callbacks()).toHaveLength(1);
      expect(warn).toHaveBeenCalledWith('interaction listener threw: broken observer');
    }));
});

describe('the other hooks', () => {
  it('the feeds cache reports autocomplete misses and hits, and list lookups', () =>
    withBot({}, async (h) => {
      const lookups: CacheLookup[] = [];
      h.client.onCacheLookup((l) => lookups.push(l));
      h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
      await h.run(autocomplete('feed', 'delete', { id: '' }, 'id'));
      await h.run(autocomplete('feed', 'posts', { id: 'e' }, 'id'));
      await h.client.listFeeds({ apiKey: 'fbk_TestKeyForUnitTests_9f3Kq2', guildId: '1100000000000000001' });
      expect(lookups).toEqual([
        { use: 'autocomplete', hit: false },
        { use: 'list', hit: false }, // the fetch on the miss goes through listFeeds
        { use: 'autocomplete', hit: true },
        { use: 'list', hit: true },
      ]);
    }));

  it('the key store reports each operation with its outcome, never its guild or key', () =>
    withBot({}, async (h) => {
      const ops: KeyStoreOperation[] = [];
      h.keys.onOperation((o) => ops.push(o));
      await h.keys.get('1100000000000000001');
      await h.keys.delete('1100000000000000002');
      await expect(h.keys.get('not-a-snowflake')).rejects.toMatchObject({ code: 'invalid_input' });
      await h.keys.audit();
      expect(ops.map((o) => `${o.op}:${o.outcome}`)).toEqual(['get:ok', 'delete:ok', 'get:invalid_input', 'audit:ok']);
      for (const o of ops) expect(Object.keys(o).sort()).toEqual(['durationMs', 'op', 'outcome']);
    }));
});

describe('instrument()', () => {
  it('carries interactions, API responses, cache lookups and key store operations into the registry', () =>
    withBot({}, async (h) => {
      const metrics = new BotMetrics({ defaultMetrics: false });
      const stop = instrument({ router: h.router, api: h.client, keys: h.keys, client: h.discord.client }, metrics);
      h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl(42) });
      await h.run(chatInput('feed', 'list'));
      await h.run(autocomplete('feed', 'delete', { id: '' }, 'id'));
      const e = parseExposition((await metrics.scrape()).body);
      expect(sum(e, 'feedbot_interactions_total', { kind: 'command', command: 'feed', subcommand: 'list', outcome: 'ok' })).toBe(1);
      expect(sum(e, 'feedbot_interactions_total', { kind: 'autocomplete', command: 'feed', subcommand: 'delete', outcome: 'ok' })).toBe(1);
      expect(sum(e, 'feedbot_api_requests_total', { route: 'listFeeds', status: '200' })).toBe(1);
      expect(sum(e, 'feedbot_api_remaining_budget_lowest')).toBe(42);
      expect(sum(e, 'feedbot_feeds_cache_lookups_total', { use: 'autocomplete', result: 'hit' })).toBe(1);
      expect(sum(e, 'feedbot_key_store_operations_total', { op: 'get', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
      expect(sum(e, 'feedbot_interactions_in_flight')).toBe(0);

      stop();
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats(), { headers: rl() });
      await h.run(chatInput('stats', undefined));
      const after = parseExposition((await metrics.scrape()).body);
      expect(sum(after, 'feedbot_interactions_total')).toBe(2);
    }));
});
