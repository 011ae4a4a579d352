/**
 * Scenario 4 — slow API. The production bot (createBot) logged in to the Discord emulator
 * (src/emulator: real gateway and REST, Discord's 3-second acknowledgement deadline enforced and
 * recorded), with the feed API answering after 0.5, 2, 5 or 10 s (in-process MockAgent, one key
 * and guild per latency). A handful of commands per latency run concurrently, all latencies in
 * parallel. Measured: acknowledgement time (by the emulator, from the interaction's creation),
 * when the final answer arrived, and what it was. The baseline is a naive bot on a second
 * emulator with the same guilds: it calls the API and replies when the answer is there, without
 * deferring; it gets the same interactions at the same time.
 */
import { once } from 'node:events';
import { Events } from 'discord.js';
import { createDiscordClient } from '../../src/bot/discord-client.js';
import { commands } from '../../src/commands.js';
import { generateGuilds, makeBotToken, startEmulator, type RecordedCall } from '@feedbot/discord-emulator';
import { startBenchBot } from '../lib/bot.js';
import { benchLogger } from '../lib/logger.js';
import { attachNaiveCommands } from '../lib/naive.js';
import { MOCK_BASE, startMockApi } from '../lib/mock-api.js';
import type { Metric, ScenarioResult } from '../lib/report.js';
import { ratio, round } from '../lib/stats.js';
import { withTimeout } from '../lib/time.js';
import type { ScenarioContext } from './types.js';

const APP_ID = '1200000000000000001';
const ACK_DEADLINE_MS = 3_000;

interface Row {
  latencyMs: number;
  command: string;
  ackMs: number | null;
  ackType: number | null;
  finalMs: number | null;
  outcome: string;
}

/** When the bot last sent something visible for this interaction (its REST calls, as the emulator saw them). */
function lastAnswerAt(calls: readonly RecordedCall[], token: string): number | null {
  let last: number | null = null;
  for (const c of calls) {
    if (c.status < 400 && c.method !== 'GET' && c.path.includes(`/${token}`)) last = Math.max(last ?? 0, c.at);
  }
  return last;
}

export async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const started = performance.now();
  const latencies = ctx.quick ? [500, 2_000] : [500, 2_000, 5_000, 10_000];
  const perLatency = ctx.quick ? 3 : 5;
  const keyFor = (latency: number) => `fbk_BenchSlowApiKey${String(latency).padStart(6, '0')}xxxxxx`;

  const api = startMockApi({ latencyMs: Object.fromEntries(latencies.map((l) => [keyFor(l), l])) });
  const guilds = generateGuilds(latencies.length);
  const token = makeBotToken(APP_ID);
  const emu = await startEmulator({ applicationId: APP_ID, botToken: token, guilds, ackDeadlineMs: ACK_DEADLINE_MS });
  emu.setCommands(commands.map((c) => c.data.toJSON()));
  const logs = benchLogger({ keep: ['"msg":"interaction"'] });
  const bot = await startBenchBot({ apiUrl: MOCK_BASE, dispatcher: api.agent, logger: logs.logger, discordApiUrl: emu.apiUrl });
  const naiveToken = makeBotToken(APP_ID);
  const naiveEmu = await startEmulator({ applicationId: APP_ID, botToken: naiveToken, guilds, ackDeadlineMs: ACK_DEADLINE_MS });
  naiveEmu.setCommands(commands.map((c) => c.data.toJSON()));
  const naiveClient = createDiscordClient({ apiUrl: naiveEmu.apiUrl });
  const keyByGuild = new Map(latencies.map((l, i) => [guilds[i]!.id, keyFor(l)]));
  const naive = attachNaiveCommands(naiveClient, { baseUrl: MOCK_BASE, dispatcher: api.agent, keyFor: (g) => keyByGuild.get(g)! });

  try {
    for (const [i, latency] of latencies.entries()) await bot.setKey(guilds[i]!.id, keyFor(latency));
    const ready = once(bot.app.client, Events.ClientReady);
    const naiveReady = once(naiveClient, Events.ClientReady);
    await bot.app.client.login(token);
    await naiveClient.login(naiveToken);
    await withTimeout(Promise.all([ready, naiveReady]), 20_000, 'bots READY');

    const plan = [
      { command: '/feed list', input: { commandName: 'feed', subcommand: 'list' } },
      { command: '/stats', input: { commandName: 'stats' } },
      { command: '/feed posts', input: { commandName: 'feed', subcommand: 'posts', options: { id: 1 } } },
      { command: '/feed posts', input: { commandName: 'feed', subcommand: 'posts', options: { id: 2 } } },
      { command: '/feed list', input: { commandName: 'feed', subcommand: 'list' } },
    ];
    ctx.log(`  ${perLatency} commands at each latency (${latencies.map((l) => `${l / 1000} s`).join(', ')}), all at once`);
    const handles = latencies.flatMap((latency, i) =>
      Array.from({ length: perLatency }, (_, k) => {
        const p = plan[k % plan.length]!;
        const input = {
          type: 'command' as const,
          ...p.input,
          guildId: guilds[i]!.id,
          userId: String(1400000000000002000n + BigInt(i * 10 + k)),
          permissions: '8',
        };
        return { latency, command: p.command, handle: emu.sendInteraction(input), naiveHandle: naiveEmu.sendInteraction(input) };
      }),
    );
    const snapshots = await Promise.all(
      handles.map(async (h) => ({
        ...h,
        snapshot: await h.handle.waitForFinal({ timeoutMs: 30_000, settleMs: 200 }),
        naiveSnapshot: await h.naiveHandle.waitForFinal({ timeoutMs: 30_000, settleMs: 200 }),
      })),
    );
    await bot.app.router.drain();
    await naive.settle();
    const outcomes = new Map(logs.entries().map((e) => [String(e.interactionId), String(e.outcome)]));
    const rows: Row[] = snapshots.map(({ latency, command, handle, snapshot: s }) => {
      const end = lastAnswerAt(emu.calls, handle.token);
      return {
        latencyMs: latency,
        command,
        ackMs: s.ack ? s.ack.elapsedMs : null,
        ackType: s.ack?.type ?? null,
        finalMs: end === null ? null : end - s.createdAt,
        outcome: outcomes.get(s.id) ?? (s.state === 'expired' ? 'expired' : 'unknown'),
      };
    });
    // The naive bot's only answer is its reply: an acknowledgement that carries the data.
    const naiveRows: Row[] = snapshots.map(({ latency, command, naiveSnapshot: s }) => ({
      latencyMs: latency,
      command,
      ackMs: s.ack ? s.ack.elapsedMs : null,
      ackType: s.ack?.type ?? null,
      finalMs: s.ack ? s.ack.elapsedMs : null,
      outcome: s.ack ? 'ok' : s.state,
    }));
    const ackViolations = emu.violations.filter((v) => v.kind === 'ack_timeout' || v.kind === 'unknown_interaction');
    const naiveViolations = naiveEmu.violations.filter((v) => v.kind === 'ack_timeout' || v.kind === 'unknown_interaction');

    const metrics: Metric[] = [];
    const byLatency: Record<string, unknown> = {};
    const summary = (list: Row[]) => {
      const inTime = list.filter((r) => r.ackMs !== null && r.ackMs <= ACK_DEADLINE_MS).length;
      const finals = list.map((r) => r.finalMs).filter((v): v is number => v !== null).sort((a, b) => a - b);
      return {
        share: round((inTime / list.length) * 100, 1),
        worstAck: list.some((r) => r.ackMs === null) ? null : round(Math.max(...list.map((r) => r.ackMs!))),
        medianFinal: finals.length ? round(finals[Math.floor((finals.length - 1) / 2)]!) : null,
        worstFinal: finals.length === list.length ? round(finals.at(-1)!) : null,
        withData: round((list.filter((r) => r.outcome === 'ok').length / list.length) * 100, 1),
      };
    };
    for (const latency of latencies) {
      const mine = rows.filter((r) => r.latencyMs === latency);
      const theirs = naiveRows.filter((r) => r.latencyMs === latency);
      const b = summary(mine);
      const n = summary(theirs);
      const outcomesHere: Record<string, number> = {};
      for (const r of mine) outcomesHere[r.outcome] = (outcomesHere[r.outcome] ?? 0) + 1;
      const label = `${latency / 1000} s API`;
      metrics.push(
        { name: `${label}: acknowledged within 3 s`, unit: '%', value: b.share, baseline: n.share, target: '100 %', met: b.share === 100 },
        { name: `${label}: slowest acknowledgement`, unit: 'ms', value: b.worstAck, baseline: n.worstAck },
        { name: `${label}: final answer, median`, unit: 'ms', value: b.medianFinal, baseline: n.medianFinal, ratio: ratio(b.medianFinal, n.medianFinal) },
        { name: `${label}: final answer, slowest`, unit: 'ms', value: b.worstFinal, baseline: n.worstFinal },
        { name: `${label}: answers carrying the data`, unit: '%', value: b.withData, baseline: n.withData },
      );
      byLatency[String(latency)] = { outcomes: outcomesHere, rows: mine, naiveRows: theirs };
    }
    return {
      id: 4,
      key: 'slow-api',
      title: 'Slow API',
      baseline: 'naive bot on a second emulator: calls the API, then replies (no deferral); same interactions at the same time',
      params: {
        latenciesMs: latencies,
        commandsPerLatency: perLatency,
        deferAfterMs: 1500,
        feedApiTimeoutMs: 5000,
        feedApiTotalTimeoutMs: 10_000,
        discord: 'src/emulator over loopback HTTP + WebSocket',
      },
      metrics,
      details: { byLatency, emulatorAckViolations: { bot: ackViolations.length, naive: naiveViolations.length } },
      notes: [
        ...latencies.map((l) => {
          const o = (byLatency[String(l)] as { outcomes: Record<string, number> }).outcomes;
          return `${l / 1000} s API, feedbot's final answers: ${Object.entries(o).map(([k, v]) => `${k} ×${v}`).join(', ')}.`;
        }),
        `Missed deadlines recorded by the emulators: feedbot ${ackViolations.length}, naive ${naiveViolations.length} (a late reply counts again as "unknown interaction").`,
      ],
      durationMs: Math.round(performance.now() - started),
    };
  } finally {
    await bot.close();
    await naiveClient.destroy();
    await emu.close();
    await naiveEmu.close();
    await api.close();
  }
}
