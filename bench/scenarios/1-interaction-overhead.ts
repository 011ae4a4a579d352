/**
 * Scenario 1 — interaction overhead. N `/feed list` interactions through the real bot (createBot:
 * router, responder, key store, API client, renderer, one log line each) against two baselines:
 * a discord.js handler that replies with a fixed embed of the same size (no work at all), and a
 * naive bot that does the same work per command without gate, cache or validation (read and
 * decrypt the key from Keyv, one undici request, reply with the same embed; lib/naive-fair.ts).
 * All use real discord.js objects built from raw payloads with REST captured; the feed API is an
 * in-process MockAgent that answers at once. Measured: dispatch → interaction callback, one
 * interaction at a time (all sides alternating, so drift hits each), then throughput with 32 in
 * flight.
 *
 * Two diagnostics explain the gap: which samples overlapped a garbage-collection pause, and where
 * the time of a second, instrumented bot goes (timers around its key-store read and its feed API
 * call), measured in the same alternation.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { Events, type APIEmbed } from 'discord.js';
import { createDiscordClient } from '../../src/bot/discord-client.js';
import { feedListView } from '../../commands/feed/render-feeds.js';
import { translator } from '../../src/i18n/index.js';
import { BENCH_SECRET, startBenchBot } from '../lib/bot.js';
import { chatInput, dispatch, RestCapture, type Invoker } from '../lib/discord.js';
import { benchLogger } from '../lib/logger.js';
import { MOCK_BASE, SAMPLE_FEEDS, startMockApi } from '../lib/mock-api.js';
import { startNaiveFairBot } from '../lib/naive-fair.js';
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
  const probed = await startBenchBot({ apiUrl: MOCK_BASE, dispatcher: api.agent, logger: benchLogger().logger });
  await probed.setKey(GUILD_ID, API_KEY);
  const phase = { handler: 0, keys: [0, 0], api: [0, 0] };
  probed.app.client.prependListener(Events.InteractionCreate, () => {
    phase.handler = performance.now();
  });
  const wrap = <A extends unknown[], R>(fn: (...a: A) => Promise<R>, into: number[]) =>
    async (...a: A): Promise<R> => {
      into[0] = performance.now();
      try {
        return await fn(...a);
      } finally {
        into[1] = performance.now();
      }
    };
  probed.app.keys.get = wrap(probed.app.keys.get.bind(probed.app.keys), phase.keys);
  probed.app.api.listFeeds = wrap(probed.app.api.listFeeds.bind(probed.app.api), phase.api);
  const phases = { discordJs: [] as number[], keyStore: [] as number[], feedApi: [] as number[], renderAndReply: [] as number[] };

  const gcPauses: { start: number; end: number }[] = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcPauses.push({ start: e.startTime, end: e.startTime + e.duration });
  });

  // The baseline answers with the embed feedbot would render for the same list.
  const fixed: APIEmbed = feedListView(translator('en'), SAMPLE_FEEDS, { page: 1 }).embed;
  const baseCapture = new RestCapture();
  const baseClient = createDiscordClient({ rest: baseCapture.rest });
  baseClient.rest.setToken('bench-token-not-real');
  const naive = await startNaiveFairBot({ baseUrl: MOCK_BASE, dispatcher: api.agent, secret: BENCH_SECRET });
  await naive.setKey(GUILD_ID, API_KEY);
  const naiveInMemory = await startNaiveFairBot({ baseUrl: MOCK_BASE, dispatcher: api.agent, secret: BENCH_SECRET, sealedInMemory: true });
  await naiveInMemory.setKey(GUILD_ID, API_KEY);
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
    botInstrumented: {
      client: probed.app.client,
      capture: probed.capture,
      settle: () => probed.app.router.drain(),
    },
    baseline: {
      client: baseClient,
      capture: baseCapture,
      settle: async () => {
        while (baseRunning.size > 0) await Promise.allSettled([...baseRunning]);
      },
    },
    naive: { client: naive.client, capture: naive.capture, settle: () => naive.settle() },
    naiveInMemory: { client: naiveInMemory.client, capture: naiveInMemory.capture, settle: () => naiveInMemory.settle() },
  };
  type Side = (typeof sides)[keyof typeof sides];

  interface Sample {
    t0: number;
    at: number;
  }

  /** One interaction: dispatch → callback; waits until the side has fully finished with it. */
  async function once(side: Side): Promise<Sample> {
    const raw = chatInput('feed', 'list', {}, invoker());
    const acked = side.capture.callback(raw.id);
    const t0 = performance.now();
    dispatch(side.client, raw);
    const { at } = await acked;
    await side.settle();
    return { t0, at };
  }

  const overlapsGc = (s: Sample) => gcPauses.some((g) => g.end > s.t0 && g.start < s.at);

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
      await once(sides.botInstrumented);
      await once(sides.baseline);
      await once(sides.naive);
      await once(sides.naiveInMemory);
    }
    await throughput(sides.bot, warmup);
    await throughput(sides.baseline, warmup);
    await throughput(sides.naive, warmup);

    ctx.log(`  latency: ${n} each, alternating`);
    const samples: Record<keyof typeof sides, Sample[]> = { bot: [], botInstrumented: [], baseline: [], naive: [], naiveInMemory: [] };
    const names = Object.keys(sides) as (keyof typeof sides)[];
    gcObserver.observe({ entryTypes: ['gc'] });
    for (let i = 0; i < n; i++) {
      // Rotate who goes first so no side always runs right after another's garbage.
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length]!;
        const sample = await once(sides[name]);
        samples[name].push(sample);
        if (name === 'botInstrumented') {
          phases.discordJs.push(phase.handler - sample.t0);
          phases.keyStore.push(phase.keys[1]! - phase.keys[0]!);
          phases.feedApi.push(phase.api[1]! - phase.api[0]!);
          phases.renderAndReply.push(sample.at - phase.api[1]!);
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    gcObserver.disconnect();
    const ms = (list: Sample[]) => list.map((x) => x.at - x.t0);
    const botMs = ms(samples.bot);
    const baseMs = ms(samples.baseline);
    const naiveMs = ms(samples.naive);
    const us = (list: number[]) => Math.round(summarize(list).p50 * 1000);
    const gcShare = (list: Sample[]) => round((list.filter(overlapsGc).length / list.length) * 100, 2);
    const withoutGc = (list: Sample[]) => roundSummary(summarize(ms(list.filter((x) => !overlapsGc(x)))));

    ctx.log(`  throughput: ${throughputN} each, ${concurrency} in flight`);
    const botIps: number[] = [];
    const baseIps: number[] = [];
    const naiveIps: number[] = [];
    for (let round_ = 0; round_ < 2; round_++) {
      botIps.push(await throughput(sides.bot, throughputN / 2));
      baseIps.push(await throughput(sides.baseline, throughputN / 2));
      naiveIps.push(await throughput(sides.naive, throughputN / 2));
    }

    const bs = summarize(botMs);
    const ls = summarize(baseMs);
    const ns = summarize(naiveMs);
    const mean = (list: number[]) => round(list.reduce((a, b) => a + b, 0) / list.length);
    const botRate = mean(botIps);
    const baseRate = mean(baseIps);
    const naiveRate = mean(naiveIps);
    const p99Ratio = ratio(bs.p99, ls.p99);
    const p99NaiveRatio = ratio(bs.p99, ns.p99);
    const upstream = api.requests.get(API_KEY) ?? 0;
    return {
      id: 1,
      key: 'interaction-overhead',
      title: 'Interaction overhead',
      baseline:
        'discord.js handler replying with a fixed embed (same client options, same captured REST); "vs naive" rows: a naive bot doing the same work per command without gate, cache or validation',
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
        { name: 'p50 dispatch→callback vs naive', unit: 'ms', value: round(bs.p50), baseline: round(ns.p50), ratio: ratio(bs.p50, ns.p50) },
        {
          name: 'p99 dispatch→callback vs naive',
          unit: 'ms',
          value: round(bs.p99),
          baseline: round(ns.p99),
          ratio: p99NaiveRatio,
          target: '≤ 1.2× naive',
          met: p99NaiveRatio === null ? null : p99NaiveRatio <= 1.2,
        },
        { name: 'interactions per second vs naive', unit: '/s', value: botRate, baseline: naiveRate, ratio: ratio(botRate, naiveRate) },
      ],
      details: {
        bot: roundSummary(bs),
        baseline: roundSummary(ls),
        naive: roundSummary(ns),
        naiveSealedInMemory: roundSummary(summarize(ms(samples.naiveInMemory))),
        p99OverheadMs: round(bs.p99 - ls.p99),
        diagnostics: {
          samplesOverlappingGcPercent: { bot: gcShare(samples.bot), baseline: gcShare(samples.baseline), naive: gcShare(samples.naive) },
          excludingGcSamples: { bot: withoutGc(samples.bot), baseline: withoutGc(samples.baseline), naive: withoutGc(samples.naive) },
          gcPauses: gcPauses.length,
          instrumentedBot: roundSummary(summarize(ms(samples.botInstrumented))),
          instrumentedBotPhasesP50: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, round(summarize(v).p50)])),
        },
        throughputRuns: { bot: botIps.map((v) => round(v)), baseline: baseIps.map((v) => round(v)), naive: naiveIps.map((v) => round(v)) },
        upstreamRequests: upstream,
      },
      notes: [
        `Samples that overlapped a GC pause: feedbot ${gcShare(samples.bot)} %, baseline ${gcShare(samples.baseline)} %, naive ${gcShare(samples.naive)} %; without them, p99 is ${withoutGc(samples.bot).p99} ms against ${withoutGc(samples.baseline).p99} ms (naive ${withoutGc(samples.naive).p99} ms).`,
        `Diagnostic: the naive bot with its sealed keys in memory instead of SQLite (still decrypting per command): p50 ${round(summarize(ms(samples.naiveInMemory)).p50)} ms, p99 ${round(summarize(ms(samples.naiveInMemory)).p99)} ms; feedbot's p99 is ${ratio(bs.p99, summarize(ms(samples.naiveInMemory)).p99)}× that.`,
        `Instrumented feedbot, median per phase: discord.js ${us(phases.discordJs)} µs, key store ${us(phases.keyStore)} µs, feed API call ${us(phases.feedApi)} µs, render and reply ${us(phases.renderAndReply)} µs (its total p50: ${round(summarize(ms(samples.botInstrumented)).p50)} ms).`,
      ],
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    gcObserver.disconnect();
    await bot.close();
    await probed.close();
    await baseClient.destroy();
    await naive.close();
    await naiveInMemory.close();
    await api.close();
  }
}
