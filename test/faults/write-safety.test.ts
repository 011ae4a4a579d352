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

  // DEFECT (reported to the lead): src/api/retry-policy.ts retries DELETE because "a second try
  // may answer 404, which the caller treats as 'already gone'" — but no caller does. The retry's
  // 404 becomes NotFoundError and the admin who just deleted feed #1 reads "Feed #1 does not
  // exist in this server." instead of being told it is deleted. Nothing is lost or doubled; the
  // answer is wrong. (A fix: deleteFeed, or the button, treats a 404 on attempt > 1 as success.)
  botTest.fails('is told the feed is deleted, not that it never existed', async ({ bot: h }) => {
    const f = family('/feed delete → Delete');
    const raw = await runFamily(h, f, 'en-US', () => {
      h.agent.enableCallHistory();
      h.agent.clearCallHistory();
      // Deleted server-side, but the answer comes after the 400 ms time-out; the retry finds nothing.
      h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(200, { ok: true, mensaje: 'Feed 1 eliminado' }, { headers: rl() }).delay(1_200);
      h.api.intercept({ path: '/v1/feeds/1', method: 'DELETE' }).reply(404, { error: { codigo: 'not_found', mensaje: 'Feed no encontrado' } }, { headers: rl() });
    });
    expect(apiRequests(h, 'DELETE', '/v1/feeds/1')).toBe(2);
    expect(visibleAnswer(h, raw, true).text).not.toBe(catalogueFor('en-US')('error.notFound', { id: 1 }));
    expect(interactionLine(h, raw)).toMatchObject({ outcome: 'ok' });
  });
});

describe('two delete confirmations of the same feed by the same admin within one second', () => {
  const fixedNow = Date.now();
  botTest.override({ harness: { confirmTtlMs: 300, now: () => fixedNow } });

  // DEFECT (reported to the lead): commands/feed/delete.ts keys its expiry timers by
  // `${feedId}:${userId}:${expires}` (expires in whole seconds), so a second confirmation with
  // the same key replaces the first one's timer in the map without clearing it. Pressing Delete
  // on the first then cancels the *second* one's timer; the first's still fires and overwrites
  // "Feed deleted" with "This confirmation has expired", while the second confirmation keeps
  // its buttons. (The key has no guild either: one admin in two guilds collides the same way.)
  // Found by the soak, where the orphaned timers also held their interactions until expiry.
  botTest.fails('each confirmation keeps its own expiry: a pressed one is never marked expired', async ({ bot: h }) => {
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
});
