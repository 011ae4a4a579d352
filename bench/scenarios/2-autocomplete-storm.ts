/**
 * Scenario 2 — autocomplete storm. 1,000 autocomplete interactions within one minute from one
 * guild, as typing produces them (sessions of keystrokes 80–250 ms apart), against the sandbox
 * (the real feed API implementation, HTTPS, 100 requests per minute per key, in a worker thread).
 * feedbot and a naive client (GET /feeds on every keystroke, no cache, no sharing) receive the
 * same schedule side by side, each for its own guild and key. Measured: requests the API
 * received (counted by the sandbox), dispatch → answer time, answers without choices.
 */
import { startBenchBot } from '../lib/bot.js';
import { autocomplete, dispatch, type CallbackRecord } from '../lib/discord.js';
import { benchLogger } from '../lib/logger.js';
import { attachNaiveAutocomplete, startNaiveBot } from '../lib/naive.js';
import type { ScenarioResult } from '../lib/report.js';
import { startBenchSandbox } from '../lib/sandbox.js';
import { typingSchedule } from '../lib/schedule.js';
import { ratio, round, roundSummary, summarize } from '../lib/stats.js';
import { until } from '../lib/time.js';
import type { ScenarioContext } from './types.js';

interface Answer {
  ms: number;
  choices: number;
}

function choicesOf(record: CallbackRecord): number {
  const body = record.raw ? (JSON.parse(record.raw) as { data?: { choices?: unknown[] } }) : undefined;
  return body?.data?.choices?.length ?? 0;
}

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const count = ctx.overrides?.count ?? (ctx.quick ? 100 : 1_000);
  const windowMs = ctx.overrides?.windowMs ?? (ctx.quick ? 6_000 : 60_000);
  const warmup = ctx.overrides?.warmup ?? (ctx.quick ? 20 : 100);

  const sandbox = await startBenchSandbox({ countRequests: true });
  const [botGuild, naiveGuild, botWarm, naiveWarm] = await Promise.all([
    sandbox.guild({ feeds: 6 }),
    sandbox.guild({ feeds: 6 }),
    sandbox.guild({ feeds: 6 }),
    sandbox.guild({ feeds: 6 }),
  ]);
  const { logger } = benchLogger();
  const bot = await startBenchBot({ apiUrl: sandbox.url, dispatcher: sandbox.agent(), logger });
  await bot.setKey(botGuild.guildId, botGuild.key);
  await bot.setKey(botWarm.guildId, botWarm.key);

  const { client: naiveClient, capture: naiveCapture, stats: naive } = startNaiveBot(attachNaiveAutocomplete, {
    baseUrl: sandbox.url,
    dispatcher: sandbox.agent(),
    guilds: [naiveGuild, naiveWarm],
  });

  const sides = {
    bot: { client: bot.app.client, capture: bot.capture, guild: botGuild.guildId, warm: botWarm.guildId },
    naive: { client: naiveClient, capture: naiveCapture, guild: naiveGuild.guildId, warm: naiveWarm.guildId },
  };
  type Side = (typeof sides)[keyof typeof sides];

  function fire(side: Side, guildId: string, userId: string, sub: string, query: string): Promise<Answer> {
    const raw = autocomplete('feed', sub, { id: query }, 'id', { guildId, userId });
    const acked = side.capture.callback(raw.id, 10_000);
    const t0 = performance.now();
    dispatch(side.client, raw);
    return acked.then((record) => ({ ms: record.at - t0, choices: choicesOf(record) }));
  }

  try {
    ctx.log(`  warm-up: ${warmup} keystrokes each on a separate guild`);
    for (let i = 0; i < warmup; i++) {
      await Promise.all([
        fire(sides.bot, sides.bot.warm, '1400000000000000999', 'delete', 'n'.repeat(i % 3)),
        fire(sides.naive, sides.naive.warm, '1400000000000000999', 'delete', 'n'.repeat(i % 3)),
      ]);
    }
    await bot.app.router.drain();
    await naive.settle();

    const schedule = typingSchedule(count, windowMs);
    ctx.log(`  storm: ${count} keystrokes over ${windowMs / 1000} s, feedbot and naive side by side`);
    const botAnswers: Promise<Answer>[] = [];
    const naiveAnswers: Promise<Answer>[] = [];
    const t0 = performance.now();
    for (const [i, k] of schedule.entries()) {
      await until(t0, k.at);
      const order = i % 2 === 0 ? (['bot', 'naive'] as const) : (['naive', 'bot'] as const);
      for (const name of order) {
        const side = sides[name];
        const answer = fire(side, side.guild, k.userId, k.subcommand, k.query);
        (name === 'bot' ? botAnswers : naiveAnswers).push(answer);
      }
    }
    const spanMs = performance.now() - t0;
    const botDone = await Promise.all(botAnswers);
    const naiveDone = await Promise.all(naiveAnswers);
    await bot.app.router.drain();
    await naive.settle();

    const counts = await sandbox.counts();
    const upstream = (guildId: string) => Object.values(counts[guildId] ?? {}).reduce((a, b) => a + b, 0);
    const botUpstream = upstream(botGuild.guildId);
    const naiveUpstream = upstream(naiveGuild.guildId);
    const bs = summarize(botDone.map((a) => a.ms));
    const ns = summarize(naiveDone.map((a) => a.ms));
    const botEmpty = botDone.filter((a) => a.choices === 0).length;
    const naiveEmpty = naiveDone.filter((a) => a.choices === 0).length;
    return {
      id: 2,
      key: 'autocomplete-storm',
      title: 'Autocomplete storm',
      baseline: 'naive client: GET /feeds on every keystroke, no cache, no sharing (same sandbox, own key)',
      params: { interactions: count, windowMs, feedApi: 'sandbox over HTTPS, 100 requests/min per key', feedsInGuild: 6 },
      metrics: [
        {
          name: 'upstream requests',
          unit: 'requests',
          value: botUpstream,
          baseline: naiveUpstream,
          ratio: ratio(botUpstream, naiveUpstream),
          target: '≤ 2',
          met: botUpstream <= 2,
        },
        {
          name: 'p99 dispatch→answer',
          unit: 'ms',
          value: round(bs.p99),
          baseline: round(ns.p99),
          ratio: ratio(bs.p99, ns.p99),
          target: '< 20 ms',
          met: bs.p99 < 20,
        },
        { name: 'p50 dispatch→answer', unit: 'ms', value: round(bs.p50), baseline: round(ns.p50), ratio: ratio(bs.p50, ns.p50) },
        {
          name: 'answers without choices',
          unit: 'answers',
          value: botEmpty,
          baseline: naiveEmpty,
        },
      ],
      details: {
        bot: roundSummary(bs),
        naive: roundSummary(ns),
        upstreamByStatus: { bot: counts[botGuild.guildId] ?? {}, naive: counts[naiveGuild.guildId] ?? {} },
        scheduleSpanMs: Math.round(spanMs),
      },
      notes: [
        'Every query matches at least one of the guild’s feeds, so an answer without choices means the list could not be had (the naive client answers empty whenever the API refuses it with 429).',
      ],
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    await bot.close();
    await naiveClient.destroy();
    await sandbox.close();
  }
}
