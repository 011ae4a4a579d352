/**
 * Scenario 3 — budget under load. 500 commands (/feed list, /stats, /feed posts) at random times
 * within one minute from one guild, against the sandbox enforcing its real limit of 100 requests
 * per minute per key (HTTPS, worker thread). A naive client (one GET per command, 429s passed on)
 * gets the same schedule side by side for its own guild and key. Measured: the 429s the API sent
 * (counted by the sandbox), and dispatch → answer for the users past the budget.
 */
import { startBenchBot } from '../lib/bot.js';
import { chatInput, dispatch, type CallbackRecord } from '../lib/discord.js';
import { benchLogger } from '../lib/logger.js';
import { attachNaiveCommands, startNaiveBot } from '../lib/naive.js';
import type { ScenarioResult } from '../lib/report.js';
import { startBenchSandbox } from '../lib/sandbox.js';
import { commandSchedule, type CommandArrival } from '../lib/schedule.js';
import { ratio, round, roundSummary, summarize } from '../lib/stats.js';
import { until } from '../lib/time.js';
import type { ScenarioContext } from './types.js';

interface Answer {
  id: string;
  ms: number;
  record: CallbackRecord;
}

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const count = ctx.quick ? 150 : 500;
  const windowMs = ctx.quick ? 6_000 : 60_000;
  const warmup = 20;

  const sandbox = await startBenchSandbox({ countRequests: true });
  const [botGuild, naiveGuild, botWarm, naiveWarm] = await Promise.all([
    sandbox.guild({ feeds: 4 }),
    sandbox.guild({ feeds: 4 }),
    sandbox.guild({ feeds: 4 }),
    sandbox.guild({ feeds: 4 }),
  ]);
  const logs = benchLogger({ keep: ['"msg":"interaction"'] });
  const bot = await startBenchBot({ apiUrl: sandbox.url, dispatcher: sandbox.agent(), logger: logs.logger });
  await bot.setKey(botGuild.guildId, botGuild.key);
  await bot.setKey(botWarm.guildId, botWarm.key);

  const { client: naiveClient, capture: naiveCapture, stats: naive } = startNaiveBot(attachNaiveCommands, {
    baseUrl: sandbox.url,
    dispatcher: sandbox.agent(),
    guilds: [naiveGuild, naiveWarm],
  });

  const sides = {
    bot: { client: bot.app.client, capture: bot.capture, guild: botGuild, warm: botWarm },
    naive: { client: naiveClient, capture: naiveCapture, guild: naiveGuild, warm: naiveWarm },
  };
  type Side = (typeof sides)[keyof typeof sides];

  function fire(side: Side, guild: { guildId: string; feedIds: number[] }, a: Pick<CommandArrival, 'userId' | 'command'>): Promise<Answer> {
    const invoker = { guildId: guild.guildId, userId: a.userId };
    const raw =
      a.command === 'stats'
        ? chatInput('stats', undefined, {}, invoker)
        : a.command === 'posts'
          ? chatInput('feed', 'posts', { id: guild.feedIds[0]! }, invoker)
          : chatInput('feed', 'list', {}, invoker);
    const acked = side.capture.callback(raw.id, 15_000);
    const t0 = performance.now();
    dispatch(side.client, raw);
    return acked.then((record) => ({ id: raw.id, ms: record.at - t0, record }));
  }

  try {
    ctx.log(`  warm-up: ${warmup} commands each on a separate guild`);
    for (let i = 0; i < warmup; i++) {
      const a = { userId: '1400000000000000999', command: (['list', 'stats', 'posts'] as const)[i % 3]! };
      await Promise.all([fire(sides.bot, sides.bot.warm, a), fire(sides.naive, sides.naive.warm, a)]);
    }
    await bot.app.router.drain();
    await naive.settle();
    const before = await sandbox.counts();
    logs.lines.length = 0;

    const schedule = commandSchedule(count, windowMs);
    ctx.log(`  load: ${count} commands over ${windowMs / 1000} s, feedbot and naive side by side`);
    const botAnswers: Promise<Answer>[] = [];
    const naiveAnswers: Promise<Answer>[] = [];
    const t0 = performance.now();
    for (const [i, a] of schedule.entries()) {
      await until(t0, a.at);
      const order = i % 2 === 0 ? (['bot', 'naive'] as const) : (['naive', 'bot'] as const);
      for (const name of order) {
        const side = sides[name];
        (name === 'bot' ? botAnswers : naiveAnswers).push(fire(side, side.guild, a));
      }
    }
    const botDone = await Promise.all(botAnswers);
    const naiveDone = await Promise.all(naiveAnswers);
    await bot.app.router.drain();
    await naive.settle();
    const counts = await sandbox.counts();
    if (Object.keys(before[botGuild.guildId] ?? {}).length > 0 || Object.keys(before[naiveGuild.guildId] ?? {}).length > 0) {
      throw new Error('the scenario guilds were used before the run');
    }

    const outcomes = new Map(logs.entries().map((e) => [String(e.interactionId), String(e.outcome)]));
    const botLimited = botDone.filter((a) => {
      const o = outcomes.get(a.id);
      return o === 'rate_limited_local' || o === 'api_429';
    });
    const botOk = botDone.filter((a) => outcomes.get(a.id) === 'ok').length;
    const naiveLimited = naiveDone.filter((a) => a.record.raw?.includes('Rate limited'));
    const naiveOk = naiveDone.filter((a) => a.record.raw?.includes('"embeds"')).length;
    const status = (guildId: string, code: string) => counts[guildId]?.[code] ?? 0;
    const total = (guildId: string) => Object.values(counts[guildId] ?? {}).reduce((x, y) => x + y, 0);
    const bl = summarize(botLimited.map((a) => a.ms));
    const nl = summarize(naiveLimited.map((a) => a.ms));
    const all = summarize(botDone.map((a) => a.ms));
    const bot429 = status(botGuild.guildId, '429');
    const outcomeCounts: Record<string, number> = {};
    for (const a of botDone) {
      const o = outcomes.get(a.id) ?? 'unknown';
      outcomeCounts[o] = (outcomeCounts[o] ?? 0) + 1;
    }
    return {
      id: 3,
      key: 'budget-under-load',
      title: 'Budget under load',
      baseline: 'naive client: one GET per command, upstream 429 passed on to the user (same sandbox, own key)',
      params: { commands: count, windowMs, mix: '50% /feed list, 25% /stats, 25% /feed posts', feedApi: 'sandbox over HTTPS, 100 requests/min per key' },
      metrics: [
        { name: 'upstream 429s provoked', unit: 'responses', value: bot429, baseline: status(naiveGuild.guildId, '429'), target: '0', met: bot429 === 0 },
        {
          name: 'p99 answer for users past the budget',
          unit: 'ms',
          value: round(bl.p99),
          baseline: round(nl.p99),
          ratio: ratio(bl.p99, nl.p99),
          target: '< 50 ms',
          met: botLimited.length === 0 ? null : bl.p99 < 50,
        },
        { name: 'p50 answer for users past the budget', unit: 'ms', value: round(bl.p50), baseline: round(nl.p50), ratio: ratio(bl.p50, nl.p50) },
        { name: 'commands answered with data', unit: 'commands', value: botOk, baseline: naiveOk },
        { name: 'upstream requests', unit: 'requests', value: total(botGuild.guildId), baseline: total(naiveGuild.guildId) },
      ],
      details: {
        botPastBudget: roundSummary(bl),
        naivePastBudget: roundSummary(nl),
        botAllCommands: roundSummary(all),
        botOutcomes: outcomeCounts,
        upstreamByStatus: { bot: counts[botGuild.guildId] ?? {}, naive: counts[naiveGuild.guildId] ?? {} },
      },
      notes: [
        `feedbot's answers by outcome: ${Object.entries(outcomeCounts).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
        `API responses by status: feedbot ${JSON.stringify(counts[botGuild.guildId] ?? {})}, naive ${JSON.stringify(counts[naiveGuild.guildId] ?? {})}.`,
      ],
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    await bot.close();
    await naiveClient.destroy();
    await sandbox.close();
  }
}
