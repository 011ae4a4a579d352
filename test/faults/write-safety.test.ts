/**
 * Writes under faults, beyond the matrix's counts: what the user is told when a retried,
 * idempotent DELETE meets the consequence of its own first attempt, and confirmations that
 * collide in the delete command's expiry timers.
 */
import { describe, expect } from 'vitest';
import type { APIInteraction } from 'discord-api-types/v10';
import { buttonPress } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds } from '../helpers/bot.js';
import { family, runFamily } from './families.js';
import { EPHEMERAL, apiRequests, catalogueFor, interactionLine, visibleAnswer, watchForCrashes } from './support.js';

watchForCrashes();

describe('/feed delete → Delete when the first attempt timed out after the API had deleted the feed', () => {
  botTest.override({ harness: { timeoutMs: 400 } });

  // deleteFeed reads a 404 to a retry after an attempt that may have arrived as "already gone"
  // (test/api/client.delete-retry.test.ts): read as NotFoundError, it would tell the admin who had
  // just deleted feed #1 "Feed #1 does not exist in this server.".
  botTest('is told the feed is deleted, not that it never existed', async ({ bot: h }) => {
    const f = family('/feed delete → Delete');
    const raw = await runFamily(h, f, 'en-US', () => {
      h.agent.enableCallHistory();
      h.agent.clearCallHistory();
      // Deleted server-side, but the answer comes after the 400 ms time-out; the retry finds nothing.
      h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 1 eliminado' }, { headers: rl() }).delay(1_200);
      h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(404, { error: { codigo: 'not_found', mensaje: 'Feed no encontrado' } }, { headers: rl() });
    });
    expect(apiRequests(h, 'DELETE', '/v1/feeds/1')).toBe(2);
    expect(visibleAnswer(h, raw, true).text).toBe(catalogueFor('en-US')('delete.done', { id: 1 }));
    expect(interactionLine(h, raw)).toMatchObject({ outcome: 'ok', upstreamStatus: 404 });
  });
});

describe('/feed delete → Delete when every attempt failed after the API may have deleted the feed', () => {
  botTest.override({ harness: { timeoutMs: 400 } });

  botTest('a fresh list without the feed: told it is deleted', async ({ bot: h }) => {
    const f = family('/feed delete → Delete');
    const without = { ...sampleFeeds, feeds: sampleFeeds.feeds.filter((feed) => feed.id !== 1) };
    const gone = await runFamily(h, f, 'en-US', () => {
      h.agent.enableCallHistory();
      h.agent.clearCallHistory();
      h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(502, 'Bad Gateway', { headers: rl() }).times(3);
      h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, without, { headers: rl() });
    });
    expect(apiRequests(h, 'DELETE', '/v1/feeds/1')).toBe(3);
    expect(visibleAnswer(h, gone, true).text).toBe(catalogueFor('en-US')('delete.done', { id: 1 }));
  });

  botTest('a fresh list that still holds the feed: told the failure', async ({ bot: h }) => {
    const f = family('/feed delete → Delete');
    const still = await runFamily(h, f, 'en-US', () => {
      h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(502, 'Bad Gateway', { headers: rl() }).times(3);
      h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    });
    expect(visibleAnswer(h, still, true).text).toBe(catalogueFor('en-US')('error.server', { status: 502 }));
  });
});

describe('two delete confirmations of the same feed by the same admin within one second', () => {
  const fixedNow = Date.now();
  botTest.override({ harness: { confirmTtlMs: 300, now: () => fixedNow } });

  // Expiry timers are keyed by the interaction that asked (carried in the custom_id) and released
  // when a press replaces the confirmation. Keyed by `${feedId}:${userId}:${expires}` (whole
  // seconds), the second confirmation would replace the first one's timer without clearing it:
  // pressing Delete on the first would cancel the second's timer, and the first's would overwrite
  // "Feed deleted" with "This confirmation has expired".
  botTest('each confirmation keeps its own expiry: a pressed one is never marked expired', async ({ bot: h }) => {
    const first = family('/feed delete (asks)').interaction(h, 'en-US');
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(first);
    const second = family('/feed delete (asks)').interaction(h, 'en-US');
    await h.run(second);
    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 1 eliminado' }, { headers: rl() });
    const yes = (h.discord.callbacks()[0]!.body as { data: { components: { components: { custom_id: string }[] }[] } }).data.components[0]!.components[0]!.custom_id;
    await h.run(buttonPress(yes, {}, EPHEMERAL));
    const pressedAt = h.discord.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 500)); // both confirmations' time is up
    const editsOf = (raw: APIInteraction, from = 0) => h.discord.calls.slice(from).filter((c) => c.method === 'PATCH' && c.path.includes(raw.token));
    expect(editsOf(first, pressedAt), 'the pressed confirmation is left as "Feed deleted"').toEqual([]);
    expect(editsOf(second), 'the other one loses its buttons when it expires').toHaveLength(1);
  });

  botTest('any press releases its own confirmation’s timer: Cancel, and a Delete the API refused', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    const cancelled = family('/feed delete (asks)').interaction(h, 'en-US');
    await h.run(cancelled);
    const refused = family('/feed delete (asks)').interaction(h, 'en-US');
    await h.run(refused);
    const buttons = (i: number) => (h.discord.callbacks()[i]!.body as { data: { components: { components: { custom_id: string }[] }[] } }).data.components[0]!.components;
    const [yes, no] = [buttons(1)[0]!.custom_id, buttons(0)[1]!.custom_id];
    await h.run(buttonPress(no, {}, EPHEMERAL));
    // A 400 is not retried: the Delete is explained in a message of its own.
    h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(400, { error: { codigo: 'invalid', mensaje: 'no' } }, { headers: rl() });
    await h.run(buttonPress(yes, {}, EPHEMERAL));
    const pressedAt = h.discord.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const editsOf = (raw: APIInteraction) => h.discord.calls.slice(pressedAt).filter((c) => c.method === 'PATCH' && c.path.includes(raw.token));
    expect(editsOf(cancelled), 'the cancelled confirmation is left as "Cancelled"').toEqual([]);
    // Its timer is gone too (it would hold the interaction until it fired); the custom_id still refuses it after expiry.
    expect(editsOf(refused), 'the refused one is left with its explanation').toEqual([]);
  });
});
