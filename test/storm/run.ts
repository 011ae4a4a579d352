/**
 * One storm: real feedbot processes in a deployment shape, on a store, against the HTTPS sandbox
 * and the Discord emulator, while actors act at random and the seed's schedule injects faults.
 * Invariants are checked as it runs (listeners answer while a store is down, processes exit only
 * when told to) and at the end (answers, writes, audit posts, 429s, secrets, recovery, memory).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type { BotGroup} from '@feedbot/playground';
import { Stack, freePort, startPostgres, startRedis, type BotProcess, type LocalServer } from '@feedbot/playground';
import type { ApiFaultRuleInput } from '@feedbot/sandbox';
import { seededRandom } from '@feedbot/sandbox';
import type { RestFaultRule } from '@feedbot/discord-emulator';
import { silentLogger } from '../../src/logger.js';
import { storyGuild, type StoryGuild } from '../kit/story-guilds.js';
import { GuildActors, newLedger, pickAction } from './actors.js';
import { checkAuditOnce, checkDeliveries, checkSecrets, checkWrites, duringClaimOutage, excused, type Excuses, type StormViolation } from './ledger.js';
import { actorRandom, planStorm, replayCommand, type FaultKind, type PlannedFault, type Shape, type Store, type StormPlan } from './plan.js';

/** After the faults stop, every command works again within this (documented in docs/RELIABILITY.md). */
export const RECOVERY_BOUND_S = 60;
/** A kill may leave the interactions around it unanswered: those this close to it are excused. */
const KILL_WINDOW_MS = 20_000;
/** A listener that gives no status within this while its store is down fails the storm. */
const LISTENER_ANSWER_MS = 2_000;

export interface StormOptions {
  seed: number;
  minutes: number;
  shape: Shape;
  store: Store;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface ProcessFigures {
  name: string;
  starts: number;
  /** Resident memory at the first sample after start and at the last, MB. */
  firstRssMB: number;
  lastRssMB: number;
  firstHandles: number;
  lastHandles: number;
}

export interface StormReport {
  plan: StormPlan;
  replay: string;
  durationS: number;
  interactions: number;
  /** Sent while no session held the shard: Discord delivers those to nobody. */
  undelivered: number;
  byAction: Record<string, number>;
  faults: Partial<Record<FaultKind, number>>;
  injected: { feedApi: Record<string, number>; discord: Record<string, number> };
  creates: number;
  deletes: number;
  forgets: number;
  /** Weekly digests posted, in the guilds whose digest was set due during the storm. */
  digests: { set: number; posted: number };
  recoveryS: number | null;
  processes: ProcessFigures[];
  violations: StormViolation[];
}

interface Slot {
  name: string;
  metricsPort: number;
  proc: BotProcess | undefined;
  starts: number;
  samples: { rssMB: number; handles: number }[];
}

const GUILDS = (): StoryGuild[] => [storyGuild(1, 'en', 'Storm one'), storyGuild(2, 'es', 'Storm dos', 1), storyGuild(3, 'en', 'Storm three', 1)];

export async function runStorm(opts: StormOptions): Promise<StormReport> {
  const log = opts.log ?? (() => undefined);
  const plan = planStorm(opts.seed, opts.shape, opts.store, opts.minutes);
  const started = Date.now();
  const violations: StormViolation[] = [];
  const violate = (invariant: string, detail: string) => {
    violations.push({ invariant, detail });
    log(`VIOLATION ${invariant}: ${detail}`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-storm-'));
  const servers: LocalServer[] = [];
  let stack: Stack | undefined;
  const everyProcess: BotProcess[] = [];
  const expectedExits = new Set<BotProcess>();
  const kills: number[] = [];
  const claimOutages: { from: number; to: number }[] = [];
  /** After the store answers again, its clients reconnect with a back-off of up to 2 s (src/replicas/redis-link.ts). */
  const RECONNECT_MS = 5_000;
  const faultsSeen: Partial<Record<FaultKind, number>> = {};
  const guilds = GUILDS();
  const ledger = newLedger();

  try {
    // The stores: the key store's server, and for replicas the Redis their request budget shares.
    const store = opts.store === 'postgres' ? await startPostgres() : opts.store === 'redis' ? await startRedis({ persistent: true }) : undefined;
    if (store) servers.push(store);
    const budgetRedis = opts.shape === 'replicas' ? (opts.store === 'redis' ? store : await startRedis({ persistent: true })) : undefined;
    if (budgetRedis && budgetRedis !== store) servers.push(budgetRedis);
    const storeUrl = store ? await store.newDatabase() : undefined;
    const redisUrl = budgetRedis ? (budgetRedis === store ? storeUrl : await budgetRedis.newDatabase()) : undefined;

    const transport = opts.shape === 'replicas' ? 'http' : 'gateway';
    const slots: Slot[] = await Promise.all(
      (opts.shape === 'gateway' ? ['bot'] : opts.shape === 'shards' ? ['shard-0', 'shard-1'] : opts.shape === 'replicas' ? ['replica-0', 'replica-1'] : ['bot-a', 'bot-b']).map(async (name) => ({
        name,
        metricsPort: await freePort(),
        proc: undefined,
        starts: 0,
        samples: [],
      })),
    );
    stack = await Stack.start({
      dataDir: dir,
      logger: silentLogger(),
      extraGuilds: guilds.map((g) => g.guild),
      transport,
      replicas: opts.shape === 'replicas' ? 2 : 1,
      botEnv: {
        // Sweeps due all through the storm.
        HEALTH_SWEEP_SECONDS: '10',
        ...(storeUrl ? { DATABASE_URL: storeUrl } : {}),
        ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
        ...(opts.shape === 'shards' ? { SHARD_COUNT: '2' } : {}),
      },
    });
    const s = stack;
    const secret = s.env.KEY_ENCRYPTION_SECRET!;
    for (const g of guilds) await s.sandbox.admin.createServer(g.id, 'server');
    await s.deployCommands({ global: true });

    let closing = false;
    const track = (slot: Slot, proc: BotProcess) => {
      slot.proc = proc;
      slot.starts++;
      everyProcess.push(proc);
      void proc.exited.then((exit) => {
        if (expectedExits.has(proc) || closing) return;
        // The documented start with the key store down: exit 1 and one line, before `ready`; startSlot starts it again.
        if (exit.code === 1 && !proc.lines.some((l) => l.msg === 'ready') && KEY_STORE_DOWN.test(proc.stderr.join(''))) return;
        violate('no process exits but by a signal', `${slot.name} exited by itself (${JSON.stringify(exit)}): ${proc.stderr.join('').slice(-400)}`);
      });
    };
    const envOf = (slot: Slot, i: number): Record<string, string> => ({ METRICS_PORT: String(slot.metricsPort), ...(opts.shape === 'shards' ? { SHARD_IDS: String(i) } : {}) });
    let group: BotGroup | undefined;
    /**
     * Starts slot `i` (again) and waits for its `ready`. A process that cannot open its key store
     * (the store is down) exits 1 with its one documented line: started again as the shipped
     * systemd units do (Restart=on-failure, RestartSec=10s), until the store answers (60 s at most).
     */
    const startSlot = async (i: number): Promise<void> => {
      const slot = slots[i]!;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const left = Math.max(1, deadline - Date.now());
        let proc: BotProcess;
        let ready: Promise<unknown>;
        if (group) {
          ready = group.restartMember(i, left);
          proc = group.members[i]!;
        } else {
          proc = s.spawnBot({ env: envOf(slot, i) });
          ready = proc.waitForLog((l) => l.msg === 'ready', left);
        }
        track(slot, proc);
        try {
          await ready;
          return;
        } catch (error) {
          await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 2_000))]);
          if (proc.running || !KEY_STORE_DOWN.test(proc.stderr.join('')) || Date.now() > deadline) throw error;
          await new Promise((r) => setTimeout(r, SUPERVISOR_RESTART_MS));
        }
      }
    };

    // The store down when the processes start, when the seed says so: they must come up anyway.
    if (plan.storeDownAtStartS > 0 && store) {
      await store.down();
      faultsSeen.store_down = (faultsSeen.store_down ?? 0) + 1;
      const outage = { from: Date.now(), to: Number.POSITIVE_INFINITY };
      claimOutages.push(outage);
      setTimeout(
        () =>
          void store.up().then(
            () => (outage.to = Date.now() + RECONNECT_MS),
            (e: unknown) => log(`store up failed: ${String(e)}`),
          ),
        plan.storeDownAtStartS * 1000,
      );
    }
    try {
      if (transport === 'http') {
        s.replicaEnv = (i) => envOf(slots[i]!, i);
        const running = await s.startBot(60_000);
        group = running as BotGroup;
        for (const [i, slot] of slots.entries()) track(slot, group.members[i]!);
      } else {
        for (let i = 0; i < slots.length; i++) await startSlot(i);
      }
    } catch (error) {
      violate('starts with its store down', `the processes did not get ready: ${String(error)}`);
      throw error;
    }
    if (store) await store.up();
    log(`storm ${replayCommand(plan)}: ${slots.length} process(es) ready after ${Math.round((Date.now() - started) / 1000)} s`);

    const random = actorRandom(plan.seed);
    const actors = guilds.map((g, i) => new GuildActors(g, s.emulator, s.sandbox, ledger, seededRandom(Math.floor(random() * 2 ** 32) + i), plan.seed));
    for (const a of actors) await a.setUp();

    // Samples of each process's memory and handles.
    const sample = async () => {
      for (const slot of slots) {
        if (!slot.proc?.running) continue;
        const figures = await figuresOf(slot.metricsPort);
        if (figures) slot.samples.push(figures);
      }
    };

    // The fault schedule, from now.
    const t0 = Date.now();
    const endAt = t0 + plan.minutes * 60_000;
    const faultRandom = seededRandom((plan.seed * 7919) >>> 0);
    const apiRules = new Map<PlannedFault, ApiFaultRuleInput>();
    const restRules = new Map<PlannedFault, RestFaultRule>();
    const applyApi = () => s.sandbox.faults.set([...apiRules.values()], faultRandom);
    const applyRest = () => s.emulator.restFaults.set([...restRules.values()], faultRandom);
    let processFault = false;
    let storeIsDown = false;
    const pending = new Set<Promise<unknown>>();
    const later = (ms: number, work: () => Promise<void>) => {
      const p = new Promise((r) => setTimeout(r, ms)).then(work).catch((e: unknown) => log(`fault step failed: ${String(e)}`));
      pending.add(p);
      void p.finally(() => pending.delete(p));
    };
    const strike = async (f: PlannedFault): Promise<void> => {
      faultsSeen[f.kind] = (faultsSeen[f.kind] ?? 0) + 1;
      log(`+${Math.round((Date.now() - t0) / 1000)} s fault ${f.kind} for ${f.forS} s (p ${f.probability})`);
      const api = API_FAULTS[f.kind as keyof typeof API_FAULTS];
      if (api) {
        apiRules.set(f, { ...api, probability: f.probability });
        applyApi();
        return later(f.forS * 1000, () => Promise.resolve(void (apiRules.delete(f), applyApi())));
      }
      if (f.kind === 'discord_error' || f.kind === 'discord_429') {
        restRules.set(f, { kind: f.kind === 'discord_error' ? 'error' : 'rate_limited', probability: f.probability / 2, retryAfterMs: 300 + (f.target % 1200) });
        applyRest();
        return later(f.forS * 1000, () => Promise.resolve(void (restRules.delete(f), applyRest())));
      }
      const shard = opts.shape === 'shards' ? f.target % 2 : 0;
      if (f.kind === 'gateway_reconnect') return void s.emulator.requestReconnect(shard);
      if (f.kind === 'gateway_resume') return void s.emulator.dropConnection(shard);
      if (f.kind === 'gateway_identify') return void s.emulator.invalidateSession(shard, { resumable: false });
      if (f.kind === 'store_down') {
        if (!store || storeIsDown) return;
        storeIsDown = true;
        const outage = { from: Date.now(), to: Number.POSITIVE_INFINITY };
        claimOutages.push(outage);
        await store.down();
        await probeListeners(slots, transport === 'http' ? s.interactionsEndpoint : undefined, violate, 'its store down');
        return later(f.forS * 1000, async () => {
          await store.up();
          outage.to = Date.now() + RECONNECT_MS;
          storeIsDown = false;
        });
      }
      // A process killed (SIGKILL) or stopped (SIGTERM, it drains), started again later; one at a time.
      if (processFault) return;
      const i = f.target % slots.length;
      const proc = slots[i]!.proc;
      if (!proc?.running) return;
      processFault = true;
      expectedExits.add(proc);
      if (f.kind === 'process_kill') {
        kills.push(Date.now());
        proc.kill('SIGKILL');
        await proc.exited;
      } else {
        const exit = await proc.stop(30_000);
        if (exit.code !== 0) violate('drains on SIGTERM', `${slots[i]!.name} exited ${JSON.stringify(exit)} after SIGTERM`);
      }
      later(f.forS * 1000, async () => {
        try {
          await startSlot(i);
        } catch (error) {
          violate('starts again', `${slots[i]!.name}: ${String(error)}`);
        } finally {
          processFault = false;
        }
      });
    };
    for (const f of plan.faults) later(f.atS * 1000, () => strike(f));
    const sampler = setInterval(() => void sample(), 10_000);

    // The actors, one loop per server, until the end of the run.
    await Promise.all(
      actors.map(async (a) => {
        const r = seededRandom(Math.floor(random() * 2 ** 32));
        while (Date.now() < endAt) {
          const action = pickAction(r);
          // A harness error (an input the emulator refuses) is the storm's own defect: loud, not silent.
          await a.act(action).catch((error: unknown) => violate('the storm itself runs', `${action}: ${String(error)}`));
          await new Promise((res) => setTimeout(res, 400 + r() * 2_000));
        }
      }),
    );
    clearInterval(sampler);
    // Calm: every fault off, every store up, every process running.
    await Promise.all([...pending]);
    s.sandbox.faults.clear();
    s.emulator.restFaults.clear();
    if (store) await store.up();
    for (const [i, slot] of slots.entries()) if (!slot.proc?.running) await startSlot(i).catch((e: unknown) => violate('starts again', `${slot.name}: ${String(e)}`));
    await sample();
    for (const a of actors) await a.ensureKey();

    // Recovery: every server's list and stats answer within the bound.
    const recoveryStarted = Date.now();
    let recoveryS: number | null = null;
    const probe = newLedger();
    const probes = guilds.map((g) => new GuildActors(g, s.emulator, s.sandbox, probe, () => 0.9, plan.seed));
    while (Date.now() - recoveryStarted < RECOVERY_BOUND_S * 1000) {
      probe.deliveries.length = 0;
      for (const p of probes) {
        await p.act('list');
        await p.act('stats');
      }
      const ok = probe.deliveries.every((d, i) => {
        const g = guilds[Math.floor(i / 2)]!;
        return (d.final?.embeds[0]?.title ?? '') === (d.action === 'list' ? g.t('list.title') : g.t('stats.title'));
      });
      if (ok) {
        recoveryS = Math.round((Date.now() - recoveryStarted) / 100) / 10;
        break;
      }
      await new Promise((r) => setTimeout(r, 2_000));
    }
    if (recoveryS === null) {
      const last = probe.deliveries.map((d) => `${d.action}: ${d.final ? JSON.stringify([d.final.content, d.final.embeds[0]?.title, d.final.embeds[0]?.description]) : d.snapshot.state}`).join('; ');
      violate('recovers', `commands did not all work again within ${RECOVERY_BOUND_S} s after the faults stopped: ${last}`);
    }

    // The end: what was told against what is held.
    // Claims exist where two processes may hold one shard; the store they live in is the key store's (or REDIS_URL's).
    const excuses: Excuses = { kills, windowMs: KILL_WINDOW_MS, claimOutages: opts.shape === 'same-shard' ? claimOutages : [] };
    for (const v of checkDeliveries(ledger.deliveries, excuses, transport)) violate(v.invariant, v.detail);
    const answeredTwice = new Set(ledger.deliveries.filter((d) => d.snapshot.callbacks > 1 && duringClaimOutage(d.sentAt, excuses)).map((d) => d.snapshot.id));
    const feeds = new Map<string, { id: number; cuenta: string }[]>();
    for (const g of guilds) feeds.set(g.id, (await s.sandbox.admin.listFeeds(g.id)).map((f) => ({ id: f.id, cuenta: f.cuenta })));
    for (const v of checkWrites(ledger.creates, ledger.deletes, feeds, answeredTwice)) violate(v.invariant, v.detail);
    const changeTitles = new Map(
      guilds.map((g) => [g.id, s.emulator.messages({ channelId: g.channels.audit }).flatMap((m) => m.embeds.map((e) => e.title ?? '')).filter((t) => /#\d+/.test(t) && !isRepeatable(g, t))]),
    );
    for (const v of checkAuditOnce(changeTitles)) violate(v.invariant, v.detail);
    // A week's digest once per guild; a forget deletes the record of the week posted, so each may let one more through.
    let digestsPosted = 0;
    for (const g of guilds) {
      const digests = s.emulator.messages({ channelId: g.channels.audit }).filter((m) => m.embeds.some((e) => e.title === g.t('digest.title'))).length;
      digestsPosted += digests;
      const allowed = 1 + (ledger.forgetPresses.get(g.id) ?? 0);
      if (digests > allowed) violate('audit posts once', `guild ${g.id}: ${digests} weekly digests with ${allowed - 1} forgets`);
    }
    const own429 = s.sandbox.faults.ownRateLimited();
    if (Object.keys(own429).length > 0) violate('no self-made 429', `the feed API refused for its limit: ${JSON.stringify(own429)}`);
    // A second answer refused (40060) during a claim outage is the same documented trade-off. An
    // interaction in flight on a replica SIGKILLed under it cannot be answered: nginx cannot pass
    // on a POST already sent and answers 502, as the ledger excuses around a kill.
    const discordViolations = s.emulator.violations.filter(
      (v) =>
        v.kind !== 'ack_timeout' &&
        !(v.code === 40060 && v.interactionId !== undefined && answeredTwice.has(v.interactionId)) &&
        // Identify turns are claimed in the same store: while it is down each process identifies
        // on its own rule (docs/RELIABILITY.md), and Discord may refuse one inside its 5 s window.
        !(v.kind === 'identify_rate_limited' && duringClaimOutage(v.at, { ...excuses, claimOutages })) &&
        !(v.kind === 'interactions_endpoint' && excused(v.at, excuses)),
    );
    for (const v of discordViolations) violate('Discord accepts what the bot sends', `at +${Math.round((v.at - t0) / 1000)} s: ${v.kind} ${v.code} ${v.method ?? ''} ${v.route} ${v.message}`.slice(0, 300));
    const output = everyProcess.map((p) => JSON.stringify(p.lines) + p.stderr.join('')).join('\n');
    for (const v of checkSecrets(output, [...ledger.keys, secret])) violate(v.invariant, v.detail);
    for (const slot of slots) {
      const [first, last] = [slot.samples[0], slot.samples.at(-1)];
      if (!first || !last) continue;
      if (last.rssMB > Math.max(first.rssMB * 2, first.rssMB + 150)) violate('memory bounded', `${slot.name}: ${first.rssMB} → ${last.rssMB} MB`);
      if (last.handles > first.handles + 40) violate('handles bounded', `${slot.name}: ${first.handles} → ${last.handles} active handles`);
    }

    const byAction: Record<string, number> = {};
    for (const d of ledger.deliveries) byAction[d.action] = (byAction[d.action] ?? 0) + 1;
    closing = true;
    return {
      plan,
      replay: replayCommand(plan),
      durationS: Math.round((Date.now() - started) / 1000),
      interactions: ledger.deliveries.length,
      undelivered: ledger.undelivered,
      byAction,
      faults: faultsSeen,
      injected: { feedApi: s.sandbox.faults.injected(), discord: s.emulator.restFaults.injected() },
      creates: ledger.creates.length,
      deletes: ledger.deletes.length,
      forgets: ledger.forgets,
      digests: { set: ledger.digestSets, posted: digestsPosted },
      recoveryS,
      processes: slots.map((slot) => ({
        name: slot.name,
        starts: slot.starts,
        firstRssMB: slot.samples[0]?.rssMB ?? 0,
        lastRssMB: slot.samples.at(-1)?.rssMB ?? 0,
        firstHandles: slot.samples[0]?.handles ?? 0,
        lastHandles: slot.samples.at(-1)?.handles ?? 0,
      })),
      violations,
    };
  } finally {
    for (const p of everyProcess) expectedExits.add(p);
    await stack?.close().catch(() => undefined);
    for (const p of everyProcess) if (p.running) p.kill('SIGKILL');
    for (const server of servers) await server.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** docs/deploy/systemd/*.service: RestartSec=10s. */
const SUPERVISOR_RESTART_MS = 10_000;

/** The one line a process prints when it cannot open its key store at start (test/keys/startup-errors.test.ts). */
const KEY_STORE_DOWN = /DATABASE_URL: cannot use the key store at [^\n]*: (connection refused|timed out)/;

/** The API faults, as sandbox rules (probability from the plan). */
const API_FAULTS = {
  api_slow: { kind: 'slow', delayMs: 3_500 },
  api_error: { kind: 'error', phase: 'before' },
  api_error_after: { kind: 'error', phase: 'after' },
  api_reset: { kind: 'reset', phase: 'before' },
  api_reset_after: { kind: 'reset', phase: 'after' },
  api_garbage: { kind: 'garbage', phase: 'before' },
  api_garbage_after: { kind: 'garbage', phase: 'after' },
  api_429: { kind: 'rate_limited', retryAfterSeconds: 3 },
} as const satisfies Partial<Record<FaultKind, Omit<ApiFaultRuleInput, 'probability'>>>;

/** Audit titles that may rightly appear twice (none of the feed ones do). */
function isRepeatable(g: StoryGuild, title: string): boolean {
  return title === g.t('forget.audit.title');
}

/**
 * The process's resident memory (MB) and active handles, from its own /metrics: the bot process
 * itself, not the launcher in front of it (`tsx` runs the bot in a child process).
 */
async function figuresOf(port: number): Promise<{ rssMB: number; handles: number } | undefined> {
  try {
    const res = await request(`http://127.0.0.1:${port}/metrics`, { headersTimeout: 2_000, bodyTimeout: 2_000 });
    const text = await res.body.text();
    const rss = /^process_resident_memory_bytes (\d+)/m.exec(text)?.[1];
    const handles = [...text.matchAll(/^nodejs_active_handles\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
    return rss ? { rssMB: Math.round(Number(rss) / 104_857.6) / 10, handles } : undefined;
  } catch {
    return undefined;
  }
}

/** Every listener answers with a status, whatever it is, while its store is down. */
async function probeListeners(slots: readonly Slot[], interactionsUrl: string | undefined, violate: (i: string, d: string) => void, why: string): Promise<void> {
  const targets = slots.filter((s) => s.proc?.running).map((s) => ({ name: `${s.name} /healthz`, url: `http://127.0.0.1:${s.metricsPort}/healthz`, method: 'GET' as const }));
  if (interactionsUrl) targets.push({ name: 'POST /interactions', url: interactionsUrl, method: 'POST' as 'GET' });
  await Promise.all(
    targets.map(async (t) => {
      try {
        const res = await request(t.url, { method: t.method, headersTimeout: LISTENER_ANSWER_MS, bodyTimeout: LISTENER_ANSWER_MS, ...(t.method === 'GET' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } }) });
        await res.body.dump();
      } catch (error) {
        violate('listeners answer with stores down', `${t.name} with ${why}: ${String(error)}`);
      }
    }),
  );
}
