/**
 * Interaction tokens never reach the logs. When Discord refuses an answer (the interaction
 * expired before its callback, an edit fails on Discord's side), discord.js throws an error whose
 * `url` holds the interaction's token (`/interactions/{id}/{token}/callback`,
 * `/webhooks/{app}/{token}/messages/@original`) and whose `requestBody` holds what we sent; the
 * router logs that error. The log line must keep what helps (status, Discord's code, the route's
 * shape) and drop the token and the body.
 */
import type { APIInteraction } from 'discord-api-types/v10';
import { describe, expect } from 'vitest';
import type { RecordedRequest } from '@feedbot/discord-emulator/testing';
import { autocomplete, chatInput } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, sampleStats, type BotHarness } from '../helpers/bot.js';
import { TEST_TRANSPORT } from '../helpers/http-transport.js';

/** Appears only in what the bot sends Discord (the stats embed), never in a log on its own. */
const PRIVATE_ACCOUNT = 'privateaccount7qz';

const unknownInteraction = () => Response.json({ code: 10062, message: 'Unknown interaction' }, { status: 404 });
const discordDown = () => Response.json({ code: 0, message: '500: Internal Server Error' }, { status: 500 });

/** Discord answers every call `which` picks with `failure`, the others as usual. */
function failing(h: BotHarness, which: (call: RecordedRequest) => boolean, failure: () => Response): void {
  h.discord.recorder.respond = (call) => (which(call) ? failure() : undefined);
}

const isCallback = (c: RecordedRequest) => c.path.endsWith('/callback');
const isEdit = (c: RecordedRequest) => c.method === 'PATCH' && c.path.endsWith('/messages/@original');

/** The router's one line for the interaction, parsed, and every raw line checked for secrets. */
function loggedFailure(h: BotHarness, raw: APIInteraction, sent: string[]): { level: unknown; err: Record<string, unknown> } {
  const text = h.rawLogs.join('\n');
  expect(text).not.toContain(raw.token);
  expect(text).not.toContain('requestBody');
  for (const s of sent) expect(text).not.toContain(s);
  const line = h.logs.find((l) => l.msg === 'interaction' && l.interactionId === raw.id);
  expect(line?.err).toBeDefined();
  return line as { level: unknown; err: Record<string, unknown> };
}

describe('interaction tokens never reach the logs', () => {
  // Over HTTP the first response is the answer to Discord's request: there is no callback for
  // Discord to refuse (a late answer is dropped by Discord; the endpoint tests cover that).
  const callbackTest = botTest.skipIf(TEST_TRANSPORT === 'http');

  callbackTest('the callback of an expired interaction fails with 404 10062: status and code logged, not the token', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats({ cuentaMasActiva: PRIVATE_ACCOUNT }), { headers: rl() });
    failing(h, isCallback, unknownInteraction);
    const raw = chatInput('stats', undefined);
    await h.run(raw);

    const sent = h.discord.callbacks();
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]!.raw).toContain(PRIVATE_ACCOUNT); // the body the error carried
    expect(sent[0]!.path).toContain(raw.token); // the URL the error carried
    const line = loggedFailure(h, raw, [PRIVATE_ACCOUNT]);
    expect(line.level).toBe(40); // warn: the interaction expired, nothing of ours to repair
    expect(line).toMatchObject({ outcome: 'discord_error', discordStatus: 404, discordCode: 10062 });
    expect(line.err).toMatchObject({
      type: 'DiscordAPIError',
      status: 404,
      code: 10062,
      method: 'POST',
      url: expect.stringContaining(`/interactions/${raw.id}/[redacted]/callback`),
    });
  });

  describe('deferring after 20 ms', () => {
    botTest.override({ harness: { deferAfterMs: 20 } });

    botTest('the edit after a deferral fails with 500 (after discord.js retries): status logged, not the token', async ({ bot: h }) => {
      h.api
        .intercept({ path: '/v1/stats', method: 'GET' })
        .reply(200, sampleStats({ cuentaMasActiva: PRIVATE_ACCOUNT }), { headers: rl() })
        .delay(100);
      failing(h, isEdit, discordDown);
      const raw = chatInput('stats', undefined);
      await h.run(raw);

      const edits = h.discord.edits();
      expect(edits.length).toBeGreaterThan(0);
      expect(edits[0]!.raw).toContain(PRIVATE_ACCOUNT);
      expect(edits[0]!.path).toContain(raw.token);
      const line = loggedFailure(h, raw, [PRIVATE_ACCOUNT]);
      expect(line.level).toBe(50); // error: Discord failing
      expect(line).toMatchObject({ outcome: 'discord_error', discordStatus: 500 });
      expect(line.err).toMatchObject({ type: 'HTTPError', status: 500, method: 'PATCH', url: expect.stringContaining('/webhooks/1200000000000000001/[redacted]/messages/') });
    });
  });

  callbackTest('an autocomplete whose answer Discord refuses: logged without the token or the choices', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    failing(h, isCallback, unknownInteraction);
    const raw = autocomplete('feed', 'delete', { id: '' }, 'id');
    await h.run(raw);

    const choice = '@nasa → #1300000000000000001';
    expect(h.discord.callbacks()[0]!.raw).toContain(choice);
    const line = loggedFailure(h, raw, [choice]);
    expect(line).toMatchObject({ outcome: 'discord_error', level: 40, discordStatus: 404, discordCode: 10062 });
    expect(line).not.toHaveProperty('ref');
    expect(line.err).toMatchObject({ status: 404, code: 10062, url: expect.stringContaining('/[redacted]/callback') });
  });
});
