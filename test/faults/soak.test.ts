/**
 * Soak: an hour of simulated traffic in a bounded run. The real router, commands, API client
 * (rate gate, retries, feed cache) and encrypted key store, driven with a fake clock so every
 * 60-second rate-limit window passes in well under a second of real time: 200 guilds, every one
 * active every minute, a rotating few at three times their key's budget, a third of users in
 * Spanish, the delete flow pressed through. The API is a per-key window model (rate-model.ts).
 *
 * Checked: every interaction got exactly one answer and one log line, nothing logged at error
 * level, and — after warm-up — the heap (after forced GC) and the active handles stay flat.
 * SOAK_MINUTES shortens the hour for a quick look; the assertions hold for any length.
 */
import { describe, expect, it } from 'vitest';
import { MessageFlags } from 'discord.js';
import { buttonPress } from '../helpers/discord.js';
import { createBotHarness, type BotHarness } from '../helpers/bot.js';
import { AnswerCounter } from './soak/answer-counter.js';
import { sample, type Sample } from './soak/measure.js';
import { installRateLimitedApi } from './soak/rate-model.js';
import { interactionFor, minutePlan, seeded, type Step, type TrafficShape } from './soak/traffic.js';

const SHAPE: TrafficShape = {
  guilds: 200,
  minutes: Number(process.env.SOAK_MINUTES ?? 60),
  hotGuilds: 2,
  hotPerMinute: 450,
  calmPerMinute: 1,
  spanishShare: 0.3,
};
/** Interactions in flight at once. */
const CONCURRENCY = 64;
/** Samples taken before this many minutes are warm-up. */
const WARM_UP_MINUTES = Math.min(5, SHAPE.minutes - 1);
const HEAP_GROWTH_LIMIT_MB = 5;

const guildId = (i: number) => String(1_100_000_000_000_100_000n + BigInt(i));
const apiKeyOf = (i: number) => `fbk_SoakKey_${String(i).padStart(4, '0')}_x9Q`;

interface Totals {
  interactions: number;
  unanswered: string[];
  outcomes: Record<string, number>;
  errorLines: number;
}

/** One user's turn: the command, and for /feed delete a press of Delete or Cancel on its answer. */
async function runStep(h: BotHarness, counter: AnswerCounter, step: Step, totals: Totals, random: () => number): Promise<void> {
  const gid = guildId(step.guild);
  const raw = interactionFor(step, gid);
  await h.run(raw);
  totals.interactions += 1;
  const settled = counter.settle(raw.token);
  if (!settled.ok) totals.unanswered.push(`${step.action}: ${JSON.stringify(settled.tally)}`);
  const [confirm, cancel] = settled.tally.customIds.filter((id) => id.startsWith('feed:delete:'));
  if (step.action !== 'delete' || !confirm || !cancel) return;
  const press = buttonPress(random() < 0.5 ? confirm : cancel, { guildId: gid, locale: step.locale, userId: step.userId }, MessageFlags.Ephemeral);
  await h.run(press);
  totals.interactions += 1;
  const pressed = counter.settle(press.token);
  if (!pressed.ok) totals.unanswered.push(`press: ${JSON.stringify(pressed.tally)}`);
}

/** Checks and drops the minute's log lines: one `interaction` line per interaction, none at error. */
function auditLogs(h: BotHarness, expected: number, totals: Totals): void {
  const lines = h.logs.filter((l) => l.msg === 'interaction');
  expect(new Set(lines.map((l) => l.interactionId)).size, 'one log line per interaction').toBe(expected);
  expect(lines).toHaveLength(expected);
  for (const l of lines) totals.outcomes[String(l.outcome)] = (totals.outcomes[String(l.outcome)] ?? 0) + 1;
  totals.errorLines += h.logs.filter((l) => Number(l.level) >= 50).length;
  h.logs.length = 0;
  h.rawLogs.length = 0;
}

describe('soak', () => {
  it(`${SHAPE.minutes} simulated minutes, ${SHAPE.guilds} guilds, hot guilds sending ${SHAPE.hotPerMinute} commands a minute on a 100-requests key: one answer each, heap and handles flat`, async () => {
    const clock = { now: Date.now() };
    const t0 = clock.now;
    const h = await createBotHarness({ now: () => clock.now });
    const started = performance.now();
    const samples: Sample[] = [];
    const totals: Totals = { interactions: 0, unanswered: [], outcomes: {}, errorLines: 0 };
    try {
      const guildOfKey = new Map<string, string>();
      for (let i = 0; i < SHAPE.guilds; i++) {
        guildOfKey.set(apiKeyOf(i), guildId(i));
        await h.setKey(guildId(i), apiKeyOf(i));
      }
      const api = installRateLimitedApi(h.api, () => clock.now, (key) => guildOfKey.get(key) ?? '0');
      const counter = new AnswerCounter(h.discord.client);
      const random = seeded(20_261_121);
      h.logs.length = 0;
      h.rawLogs.length = 0;
      samples.push(await sample(0, 0, started));

      for (let minute = 0; minute < SHAPE.minutes; minute++) {
        const plan = minutePlan(minute, SHAPE, random);
        const before = totals.interactions;
        for (let i = 0; i < plan.length; i += CONCURRENCY) {
          clock.now = t0 + minute * 60_000 + Math.floor((i / plan.length) * 60_000);
          await Promise.all(plan.slice(i, i + CONCURRENCY).map((step) => runStep(h, counter, step, totals, random)));
        }
        await h.router.drain();
        auditLogs(h, totals.interactions - before, totals);
        if ((minute + 1) % 5 === 0 || minute + 1 === WARM_UP_MINUTES || minute + 1 === SHAPE.minutes) {
          samples.push(await sample(minute + 1, totals.interactions, started));
        }
      }
      expect(counter.open, 'interactions seen but never settled').toBe(0);

      const warm = samples.find((s) => s.minute === WARM_UP_MINUTES)!;
      const end = samples.at(-1)!;
      console.log(JSON.stringify({ shape: SHAPE, concurrency: CONCURRENCY, totals: { ...totals, unanswered: totals.unanswered.length }, api, samples }, null, 1));
      expect(totals.unanswered, 'interactions without exactly one answer').toEqual([]);
      expect(totals.errorLines, 'log lines at error level').toBe(0);
      expect(api.tooMany + (totals.outcomes.rate_limited_local ?? 0), 'the hot guilds did exceed their budget').toBeGreaterThan(0);
      expect(end.heapUsedMB - warm.heapUsedMB, 'heap growth after warm-up (MB)').toBeLessThan(HEAP_GROWTH_LIMIT_MB);
      expect(end.handleCount, `active handles after warm-up: ${JSON.stringify(warm.handles)} → ${JSON.stringify(end.handles)}`).toBeLessThanOrEqual(warm.handleCount);
    } finally {
      await h.close();
    }
  }, 240_000);
});
