/**
 * Fault matrix, Discord side: the interaction callback or the edit of a deferred reply answered
 * with 10062 (Unknown interaction), 40060 (already acknowledged), 5xx or 429, for every family.
 * Whatever Discord does: no crash, one log line per interaction, at most one acknowledgement
 * Discord accepted, nothing public left behind, and the family's write sent exactly once.
 * Transient faults (one 5xx, a 429 with Retry-After) are absorbed by discord.js: the user gets
 * the normal answer.
 */
import { describe, expect } from 'vitest';
import type { APIInteraction } from 'discord-api-types/v10';
import { GUILD_ID } from '../helpers/discord.js';
import { TEST_KEY, botTest, rl, type BotHarness } from '../helpers/bot.js';
import { DISCORD_ANSWERS, DiscordFaults, type DiscordCallKind, type DiscordFaultAnswer } from './discord-faults.js';
import { FAMILIES, answerHealthily, family, runFamily, type Family } from './families.js';
import { LEVEL, apiRequests, interactionLine, visibleAnswer, watchForCrashes } from './support.js';

watchForCrashes();

interface DiscordFault {
  id: string;
  on: Extract<DiscordCallKind, 'callback' | 'edit'>;
  /** Answers in order: each for `times` calls of that kind. */
  answers: [DiscordFaultAnswer, number][];
  /** Whether the user ends up with the normal answer. */
  delivered: boolean;
}

const A = DISCORD_ANSWERS;
const DISCORD_FAULTS: DiscordFault[] = [
  { id: 'callback: 10062 Unknown interaction', on: 'callback', answers: [[A.unknownInteraction, Infinity]], delivered: false },
  { id: 'callback: 40060 already acknowledged', on: 'callback', answers: [[A.alreadyAcknowledged, Infinity]], delivered: false },
  { id: 'callback: one 503, then accepted', on: 'callback', answers: [[A.serviceUnavailable, 1]], delivered: true },
  { id: 'callback: 503 on every attempt', on: 'callback', answers: [[A.serviceUnavailable, Infinity]], delivered: false },
  { id: 'callback: one 429, then accepted', on: 'callback', answers: [[A.rateLimited, 1]], delivered: true },
  // Discord keeps refusing until the 3-second deadline has passed; then the token is unknown.
  { id: 'callback: 429 until the deadline, then 10062', on: 'callback', answers: [[A.rateLimited, 2], [A.unknownInteraction, Infinity]], delivered: false },
  { id: 'edit of the deferred reply: one 502, then accepted', on: 'edit', answers: [[A.badGateway, 1]], delivered: true },
  { id: 'edit of the deferred reply: 502 on every attempt', on: 'edit', answers: [[A.badGateway, Infinity]], delivered: false },
  { id: 'edit of the deferred reply: two 429s, then accepted', on: 'edit', answers: [[A.rateLimited, 2]], delivered: true },
];

async function runWithDiscordFault(h: BotHarness, f: Family, fault: DiscordFault, apiDelayMs: number): Promise<{ raw: APIInteraction; faults: DiscordFaults }> {
  const faults = new DiscordFaults(h.discord.client);
  // A refused acknowledgement stops a family that acknowledges first: it must not reach the API.
  const reachesApi = !(f.acknowledgesFirst && fault.on === 'callback' && !fault.delivered);
  const raw = await runFamily(h, f, 'en-US', () => {
    if (reachesApi) answerHealthily(h.api, f, apiDelayMs);
    if (apiDelayMs > 0) f.slowDown?.(h, apiDelayMs);
    h.agent.enableCallHistory();
    h.agent.clearCallHistory();
    for (const [answer, times] of fault.answers) faults.add(fault.on, answer, times);
  });
  return { raw, faults };
}

/** What holds whatever Discord answered. */
async function expectContained(h: BotHarness, f: Family, fault: DiscordFault, raw: APIInteraction): Promise<Record<string, unknown>> {
  const line = interactionLine(h, raw);
  const seen = visibleAnswer(h, raw, f.sourcePrivate);
  expect(seen.acknowledgements, 'acknowledgements Discord accepted').toBeLessThanOrEqual(1);
  expect(seen.publicPlaceholderLeft, 'a public "thinking…" left behind').toBe(false);
  // Discord's errors carry the request URL, and with it the interaction token: never logged.
  expect(h.rawLogs.join('\n')).not.toContain(raw.token);
  if (f.write) expect(apiRequests(h, f.write.method, f.write.path), 'the write reached the API once').toBe(1);
  if (fault.delivered) {
    expect(line).toMatchObject({ outcome: 'ok', level: LEVEL.info });
    expect(seen.via).not.toBe('nothing');
    if (f.answer === 'message') expect(seen.private).toBe(f.privateAnswer);
  } else {
    // The operator sees Discord's own error; the user may see nothing, never a public error.
    const injected = fault.answers.at(-1)![0];
    const code = (injected.body as { code?: number }).code;
    // Expired or answered elsewhere: nothing of ours to repair (warn); Discord failing: error.
    const level = code === 10062 || code === 40060 ? LEVEL.warn : LEVEL.error;
    expect(line).toMatchObject({ outcome: 'discord_error', level, discordStatus: injected.status, err: expect.objectContaining({ status: injected.status }) });
    if (code) expect(line.discordCode).toBe(code);
    for (const m of seen.messages) if (m.text !== undefined && /Reference|Referencia/.test(m.text)) expect(m.private).toBe(true);
  }
  // A reference is logged exactly when the user read one: the same one.
  const shown = seen.messages.map((m) => /`([A-Z0-9]{8})`/.exec(m.text ?? '')?.[1]).find((r) => r !== undefined);
  expect(line.ref).toBe(shown);
  return line;
}

describe.concurrent('Discord answers the interaction callback badly', () => {
  describe.each(DISCORD_FAULTS.filter((x) => x.on === 'callback'))('$id', (fault) => {
    for (const f of FAMILIES) {
      botTest(`${f.id}: contained${fault.delivered ? ', answered once' : ''}`, async ({ bot: h }) => {
        const { raw, faults } = await runWithDiscordFault(h, f, fault, 0);
        expect(faults.injected.length).toBeGreaterThan(0);
        await expectContained(h, f, fault, raw);
        if (f.acknowledgesFirst && !fault.delivered) {
          // Nothing was acknowledged, so nothing was done: no probe, the stored key as it was.
          expect(apiRequests(h)).toBe(0);
          expect((await h.keys.get(GUILD_ID))?.apiKey).toBe(TEST_KEY);
        }
      });
    }
  });
});

describe.concurrent('Discord answers the edit of a deferred reply badly', () => {
  // Defer after 10 ms, answer the API after 80 ms: the answer is an edit of the deferred reply.
  botTest.override({ harness: { deferAfterMs: 10 } });

  describe.each(DISCORD_FAULTS.filter((x) => x.on === 'edit'))('$id', (fault) => {
    for (const f of FAMILIES) {
      if (!f.defers) {
        botTest(`${f.id}: not applicable (answered at once, never deferred); checked: no edit is sent`, async ({ bot: h }) => {
          const { raw, faults } = await runWithDiscordFault(h, f, fault, 80);
          expect(faults.injected).toEqual([]);
          expect(interactionLine(h, raw)).toMatchObject({ outcome: 'ok' });
        });
        continue;
      }
      botTest(`${f.id}: contained${fault.delivered ? ', answered once' : ''}`, async ({ bot: h }) => {
        const { raw, faults } = await runWithDiscordFault(h, f, fault, 80);
        expect(faults.injected.length).toBeGreaterThan(0);
        const line = await expectContained(h, f, fault, raw);
        expect(line.deferred).toBe(true);
      });
    }
  });
});

describe('the log line of an interaction Discord never let the bot answer', () => {
  // A refused reply (10062, 40060, 5xx, 429 until expiry) is not a handler failure: logged like
  // one, outcome `error`, it would carry a fresh `ref` no user ever saw.
  describe.each(DISCORD_FAULTS.filter((x) => x.on === 'callback' && !x.delivered))('$id', (fault) => {
    botTest('/stats: outcome discord_error, and no reference nobody saw', async ({ bot: h }) => {
      const { raw } = await runWithDiscordFault(h, family('/stats'), fault, 0);
      const line = interactionLine(h, raw);
      expect(line.outcome).toBe('discord_error');
      expect(line.ref).toBeUndefined();
    });
  });

  botTest('/stats: a handler failure whose explanation Discord refused keeps its outcome, at its level, without the ref', async ({ bot: h }) => {
    const faults = new DiscordFaults(h.discord.client);
    const raw = await runFamily(h, family('/stats'), 'en-US', () => {
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, '{"cuentas": [', { headers: rl() });
      faults.add('callback', A.unknownInteraction, Infinity);
    });
    expect(faults.injected).toHaveLength(1);
    expect(interactionLine(h, raw)).toMatchObject({ outcome: 'api_invalid_response+discord_error', level: LEVEL.error, discordStatus: 404, discordCode: 10062 });
    expect(interactionLine(h, raw).ref).toBeUndefined();
  });

  botTest('/stats: an unreachable API whose explanation Discord refused: warn, with the cause and Discord’s code', async ({ bot: h }) => {
    const faults = new DiscordFaults(h.discord.client);
    const raw = await runFamily(h, family('/stats'), 'en-US', () => {
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).replyWithError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })).times(3);
      faults.add('callback', A.alreadyAcknowledged, Infinity);
    });
    expect(interactionLine(h, raw)).toMatchObject({ outcome: 'api_unreachable+discord_error', level: LEVEL.warn, cause: 'ECONNRESET', discordCode: 40060 });
  });
});
