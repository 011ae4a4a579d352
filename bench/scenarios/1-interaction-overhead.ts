/**
 * Scenario 1 — interaction overhead. N `/feed list` interactions through the real bot (createBot:
 * router, responder, key store, API client, renderer, one log line each) against a baseline
 * discord.js handler that replies with a fixed embed of the same size. Both use real discord.js
 * objects built from raw payloads with REST captured; the feed API is an in-process MockAgent
 * that answers at once. Measured: dispatch → interaction callback, one interaction at a time
 * (bot and baseline alternating, so drift hits both), then throughput with 32 in flight.
 */
import { Events, type APIEmbed } from 'discord.js';
import { createDiscordClient } from '../../src/bot/discord-client.js';
import { feedListView } from '../../src/render/feeds.js';
import { translator } from '../../src/i18n/index.js';
import { startBenchBot } from '../lib/bot.js';
import { chatInput, dispatch, RestCapture, type Invoker } from '../lib/discord.js';
import { benchLogger } from '../lib/logger.js';
import { MOCK_BASE, SAMPLE_FEEDS, startMockApi } from '../lib/mock-api.js';
import type { ScenarioResult } from '../lib/report.js';
import { ratio, round, roundSummary, summarize } from '../lib/stats.js';
import type { ScenarioContext } from './types.js';

const GUILD_ID = '1100000000000000001';
const API_KEY = 'fbk_BenchOverheadKey_0000000001';

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const n = ctx.quick ? 200 : 3_000;
  const warmup = ctx.quick ? 50 : 500;
  const throughputN = ctx.quick ? 400 : 4_000;
  const concurrency = 32;

  const api = startMockApi();
  const { logger } = benchLogger();
  const bot = await startBenchBot({ apiUrl: MOCK_BASE, dispatcher: api.agent, logger });
  await bot.setKey(GUILD_ID, API_KEY);

  // The baseline answers with the embed feedbot would render for the same list.
  const fixed: APIEmbed = feedListView(translator('en'), SAMPLE_FEEDS, { page: 1 }).embed;
  const baseCapture = new RestCapture();
  const baseClient = createDiscordClient({ rest: baseCapture.rest });
  baseClient.rest.setToken('bench-token-not-real');
  const baseRunning = new Set<Promise<unknown>>();
  baseClient.on(Events.InteractionCreate, (interaction) => {
    if (!interaction.isChatInputCommand()) return;
    const p = interaction.reply({ embeds: [fixed] }).catch(() => undefined);
    baseRunning.add(p);
    void p.finally(() => baseRunning.delete(p));
  });

  const users = Array.from({ length: 50 }, (_, i) => String(1400000000000000100n + BigInt(i)));
  let u = 0;
  const invoker = (): Invoker => ({ guildId: GUILD_ID, userId: users[u++ % users.length]! });

  const sides = {
    bot: {
      client: bot.app.client,
      capture: bot.capture,
      settle: () => bot.app.router.drain(),
    },
    baseline: {
      client: baseClient,
      capture: baseCapture,
      settle: async () => {
        while (baseRunning.size > 0) await Promise.allSettled([...baseRunning]);
      },
    },
  };
  type Side = (typeof sides)[keyof typeof sides];

  /** One interaction: dispatch → callback (ms); waits until the side has fully finished with it. */
  async function once(side: Side): Promise<number> {
    const raw = chatInput('feed', 'list', {}, invoker());
    const acked = side.capture.callback(raw.id);
    const t0 = performance.now();
    dispatch(side.client, raw);
    const { at } = await acked;
    await side.settle();
    return at - t0;
  }

  /** `total` interactions with `concurrency` in flight; interactions per second. */
  async function throughput(side: Side, total: number): Promise<number> {
    let next = 0;
    const t0 = performance.now();
    const worker = async () => {
      while (next < total) {
        next++;
        const raw = chatInput('feed', 'list', {}, invoker());
        const acked = side.capture.callback(raw.id);
        dispatch(side.client, raw);
        await acked;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    await side.settle();
    return total / ((performance.now() - t0) / 1000);
  }

  try {
    ctx.log(`  warm-up: ${warmup} each`);
    for (let i = 0; i < warmup; i++) {
      await once(sides.bot);
      await once(sides.baseline);
    }
    await throughput(sides.bot, warmup);
    await throughput(sides.baseline, warmup);

    ctx.log(`  latency: ${n} each, alternating`);
    const botMs: number[] = [];
    const baseMs: number[] = [];
    for (let i = 0; i < n; i++) {
      // Alternate who goes first so neither always runs right after the other's garbage.
      if (i % 2 === 0) {
        botMs.push(await once(sides.bot));
        baseMs.push(await once(sides.baseline));
      } else {
        baseMs.push(await once(sides.baseline));
        botMs.push(await once(sides.bot));
      }
    }

    ctx.log(`  throughput: ${throughputN} each, ${concurrency} in flight`);
    const botIps: number[] = [];
    const baseIps: number[] = [];
    for (let round_ = 0; round_ < 2; round_++) {
      botIps.push(await throughput(sides.bot, throughputN / 2));
      baseIps.push(await throughput(sides.baseline, throughputN / 2));
    }

    const bs = summarize(botMs);
    const ls = summarize(baseMs);
    const botRate = round(botIps.reduce((a, b) => a + b, 0) / botIps.length);
    const baseRate = round(baseIps.reduce((a, b) => a + b, 0) / baseIps.length);
    const p99Ratio = ratio(bs.p99, ls.p99);
    const upstream = api.requests.get(API_KEY) ?? 0;
    return {
      id: 1,
      key: 'interaction-overhead',
      title: 'Interaction overhead',
      baseline: 'discord.js handler replying with a fixed embed (same client options, same captured REST)',
      params: { interactions: n, warmup, throughputInteractions: throughputN, concurrency, command: '/feed list', feedApi: 'undici MockAgent, instant' },
      metrics: [
        { name: 'p50 dispatch→callback', unit: 'ms', value: round(bs.p50), baseline: round(ls.p50), ratio: ratio(bs.p50, ls.p50) },
        {
          name: 'p99 dispatch→callback',
          unit: 'ms',
          value: round(bs.p99),
          baseline: round(ls.p99),
          ratio: p99Ratio,
          target: '≤ 1.5× baseline',
          met: p99Ratio === null ? null : p99Ratio <= 1.5,
        },
        { name: 'interactions per second (1 core)', unit: '/s', value: botRate, baseline: baseRate, ratio: ratio(botRate, baseRate) },
      ],
      details: {
        bot: roundSummary(bs),
        baseline: roundSummary(ls),
        p99OverheadMs: round(bs.p99 - ls.p99),
        throughputRuns: { bot: botIps.map((v) => round(v)), baseline: baseIps.map((v) => round(v)) },
        upstreamRequests: upstream,
      },
      notes: [],
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    await bot.close();
    await baseClient.destroy();
    await api.close();
  }
}
