/**
 * Every Prometheus metric of the bot, on its own registry (never prom-client's global one), with
 * Node's default metrics. The parts that report know nothing of prom-client: they emit events
 * (router records, API response events, cache lookups, key store operations) and the listeners
 * below turn them into metrics; gauges for the gateway are read at scrape time.
 *
 * Labels stay bounded: command and subcommand come from the route table, routes from the API
 * contract, statuses are HTTP codes. Never a key, a guild, a user or an interaction id.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CacheLookupListener } from '../api/feeds-cache.js';
import type { ResponseListener } from '../api/response-events.js';
import type { InteractionListener } from '../interactions/interaction-record.js';
import { CLAIM_OUTCOMES, type ClaimRecord } from '../interactions/claims.js';
import { KEY_STORE_OPS, KEY_STORE_OUTCOMES, type KeyStoreOperationListener } from '../keys/operations.js';
import { SWEEP_RESULTS } from '../health/sweep/record.js';
import type { GatewaySource } from './gateway.js';
import type { Listener } from '../observers.js';
import type { HttpInteractionRequest } from '../http/interactions-server.js';
import type { GuildForgotten } from '../guild-data/retention.js';
import { zeroed } from './zeroed.js';

type HttpRequestListener = Listener<HttpInteractionRequest>;
type GuildForgottenListener = Listener<GuildForgotten>;
import { LowestInWindow } from './lowest-in-window.js';
import type { SweepReport } from '../health/sweep/events.js';
type SweepReportListener = Listener<SweepReport>;

interface MetricsOptions {
  /** Node's process metrics (CPU, memory, event loop, GC). Default true. */
  defaultMetrics?: boolean;
  now?: () => number;
}

const INTERACTION_LABELS = ['kind', 'command', 'subcommand'] as const;
/** Around Discord's 3-second acknowledgement deadline. */
const ACK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 2.5, 3, 5];
/** Up to the API client's 10-second overall deadline and beyond (a slow Discord). */
const ANSWER_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 15, 30];
const API_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];
/** The feed API grants 100 requests per key and minute. */
const BUDGET_BUCKETS = [0, 1, 5, 10, 25, 50, 75, 100];
const STORE_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5];
/** The API's rate-limit window: the lowest remaining budget is reported over this long. */
const BUDGET_WINDOW_MS = 60_000;

const NOT_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** An outcome as the router writes it (`ok`, `api_503`, `user_error+discord_error`), or `other`. */
const boundedOutcome = (outcome: string) => (/^[a-z0-9_+]{1,64}$/.test(outcome) ? outcome : 'other');
const httpStatus = (status: number) => (Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other');

/** Node's default process metrics on `registry`, minus the ones promtool rejects. */
export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which `promtool check metrics` rejects; each is the sum of the
  // per-type gauge of the same name without `_total`, which stays.
  for (const name of NOT_COUNTERS) registry.removeSingleMetric(name);
}

export class BotMetrics {
  readonly registry = new Registry();
  private readonly lowestBudget: LowestInWindow;
  private gateway: GatewaySource | undefined;
  private inFlight: (() => number) | undefined;
  private readiness: (() => Promise<{ ready: boolean }>) | undefined;

  private readonly interactions = new Counter({
    name: 'feedbot_interactions_total',
    help: 'Interactions handled, by kind, command, subcommand (or component action) and outcome.',
    labelNames: [...INTERACTION_LABELS, 'outcome'],
    registers: [this.registry],
  });
  private readonly ackSeconds = new Histogram({
    name: 'feedbot_interaction_ack_seconds',
    help: 'From receipt to the acknowledgement Discord needs within 3 s (reply, deferral, modal or choices).',
    labelNames: INTERACTION_LABELS,
    buckets: ACK_BUCKETS,
    registers: [this.registry],
  });
  private readonly answerSeconds = new Histogram({
    name: 'feedbot_interaction_duration_seconds',
    help: 'From receipt to the end of the final answer (or failure).',
    labelNames: INTERACTION_LABELS,
    buckets: ANSWER_BUCKETS,
    registers: [this.registry],
  });
  private readonly deferrals = new Counter({
    name: 'feedbot_interaction_deferrals_total',
    help: 'Interactions acknowledged with a deferral because the answer was not ready in time.',
    labelNames: INTERACTION_LABELS,
    registers: [this.registry],
  });
  private readonly missedDeadlines = new Counter({
    name: 'feedbot_interaction_missed_deadlines_total',
    help: 'Interactions not acknowledged within 3 s of creation (Discord then answers 10062 and the user sees a failure).',
    labelNames: INTERACTION_LABELS,
    registers: [this.registry],
  });
  private readonly apiRequests = new Counter({
    name: 'feedbot_api_requests_total',
    help: 'Feed API attempts sent, by route and HTTP status (or timeout, connection).',
    labelNames: ['route', 'status'],
    registers: [this.registry],
  });
  private readonly apiSeconds = new Histogram({
    name: 'feedbot_api_request_duration_seconds',
    help: 'Feed API attempt latency, from sending to the complete answer or failure.',
    labelNames: ['route'],
    buckets: API_BUCKETS,
    registers: [this.registry],
  });
  private readonly apiRetries = new Counter({
    name: 'feedbot_api_retries_total',
    help: 'Feed API attempts followed by a retry (after a backoff).',
    labelNames: ['route'],
    registers: [this.registry],
  });
  private readonly gateRefusals = new Counter({
    name: 'feedbot_api_rate_gate_refusals_total',
    help: 'Feed API calls refused locally by the per-key rate gate (budget spent; nothing sent).',
    labelNames: ['route'],
    registers: [this.registry],
  });
  private readonly budget = new Histogram({
    name: 'feedbot_api_remaining_budget',
    help: "A key's remaining request budget after each answer that carried rate-limit headers (no key label).",
    buckets: BUDGET_BUCKETS,
    registers: [this.registry],
  });
  private readonly cacheLookups = new Counter({
    name: 'feedbot_feeds_cache_lookups_total',
    help: 'Feed list cache lookups, by use (autocomplete, list) and result (hit, miss).',
    labelNames: ['use', 'result'],
    registers: [this.registry],
  });
  private readonly storeOps = new Counter({
    name: 'feedbot_key_store_operations_total',
    help: 'Key store operations, by operation and outcome (ok or the error code).',
    labelNames: ['op', 'outcome'],
    registers: [this.registry],
  });
  private readonly storeSeconds = new Histogram({
    name: 'feedbot_key_store_operation_duration_seconds',
    help: 'Key store operation latency (a cached get never reaches SQLite).',
    labelNames: ['op'],
    buckets: STORE_BUCKETS,
    registers: [this.registry],
  });

  private readonly httpRequests = new Counter({
    name: 'feedbot_http_interaction_requests_total',
    help: 'Requests to POST /interactions (INTERACTIONS_MODE=http), by outcome: answered, ping, bad_signature, stale, replayed, too_large, bad_request, no_answer, stopping.',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly httpSeconds = new Histogram({
    name: 'feedbot_http_interaction_response_seconds',
    help: 'From receipt of a POST /interactions to its HTTP answer (the first response, within Discord\'s 3 s).',
    buckets: ACK_BUCKETS,
    registers: [this.registry],
  });

  // Gateway: who answers an interaction that every process holding its shard received (src/interactions/claims.ts).
  private readonly claims = new Counter({
    name: 'feedbot_interaction_claims_total',
    help: 'Interaction claims by outcome: won (this process answers), lost (another process holding the shard answers), unavailable (the store did not answer in time: this process answers alone).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly claimSeconds = new Histogram({
    name: 'feedbot_interaction_claim_seconds',
    help: 'Time to claim an interaction in the shared store, spent out of the 3-second deadline.',
    buckets: STORE_BUCKETS,
    registers: [this.registry],
  });

  // Servers whose data was deleted (src/guild-data/): removed from the server, or /feedbot forget.
  private readonly guildsForgotten = new Counter({
    name: 'feedbot_guilds_forgotten_total',
    help: "Servers whose key, settings and confirmations were deleted, by reason: removed (the bot left and the retention ended) or command (/feedbot forget).",
    labelNames: ['reason'],
    registers: [this.registry],
  });

  // What the health sweeps and the weekly digest (src/health/sweep/) do without being asked.
  private readonly healthSweeps = new Counter({
    name: 'feedbot_health_sweeps_total',
    help: 'Health sweeps of a server, by result: ok, unauthorized, forbidden, error, deferred (under 10 requests left), no_audit_channel, no_key, claimed_elsewhere (another replica has the slot).',
    labelNames: ['result'],
    registers: [this.registry],
  });
  private readonly healthChanges = new Counter({
    name: 'feedbot_health_changes_total',
    help: 'Changes found by the health sweeps and posted to the audit channel, by kind.',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  private readonly auditPosts = new Counter({
    name: 'feedbot_audit_posts_total',
    help: 'Audit events recorded by the health sweeps and the digest for the audit channel, by kind.',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  private readonly digestsPosted = new Counter({ name: 'feedbot_digests_posted_total', help: 'Weekly digests posted to an audit channel.', registers: [this.registry] });
  private readonly sweepUpstream = new Counter({
    name: 'feedbot_sweep_upstream_requests_total',
    help: 'Requests to the feed API sent by the health sweeps and the digest, by route.',
    labelNames: ['route'],
    registers: [this.registry],
  });

  constructor(opts: MetricsOptions = {}) {
    this.lowestBudget = new LowestInWindow(BUDGET_WINDOW_MS, opts.now ?? Date.now);
    if (opts.defaultMetrics ?? true) collectProcessMetrics(this.registry);
    // The outcomes the alert rules count one by one start at 0, so their first event is seen.
    zeroed(this.storeOps, KEY_STORE_OPS.flatMap((op) => KEY_STORE_OUTCOMES.map((outcome) => ({ op, outcome }))));
    zeroed(this.claims, CLAIM_OUTCOMES.map((outcome) => ({ outcome })));
    zeroed(this.healthSweeps, SWEEP_RESULTS.map((result) => ({ result })));
    zeroed(this.guildsForgotten, [{ reason: 'removed' }, { reason: 'command' }]);
    // prom-client calls collect() with the gauge as `this`; these read the bot's state.
    const lowestBudget = () => this.lowestBudget.lowest();
    const inFlight = () => this.inFlight?.() ?? 0;
    const shards = () => this.gateway?.shards ?? new Map<number, never>();
    const readiness = () => this.readiness?.();
    new Gauge({
      name: 'feedbot_ready',
      help: 'Whether this process serves interactions (1) or not (0), as /readyz says: every gateway shard Ready, the key store answering, not shutting down.',
      registers: [this.registry],
      async collect() {
        const check = readiness();
        if (check) this.set((await check).ready ? 1 : 0);
      },
    });
    new Gauge({
      name: 'feedbot_api_remaining_budget_lowest',
      help: 'The lowest remaining request budget any key had in the window; absent when no answer carried rate-limit headers.',
      labelNames: ['window'],
      registers: [this.registry],
      collect() {
        this.reset();
        const lowest = lowestBudget();
        if (lowest !== undefined) this.set({ window: '60s' }, lowest);
      },
    });
    new Gauge({
      name: 'feedbot_interactions_in_flight',
      help: 'Interactions being handled right now.',
      registers: [this.registry],
      collect() {
        this.set(inFlight());
      },
    });
    new Gauge({
      name: 'feedbot_gateway_shard_status',
      help: 'Gateway shard status (discord.js Status: 0 Ready, 1 Connecting, 2 Reconnecting, 3 Idle, 4 Nearly, 5 Disconnected, 6 WaitingForGuilds, 7 Identifying, 8 Resuming).',
      labelNames: ['shard'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [id, shard] of shards()) this.set({ shard: String(id) }, shard.status);
      },
    });
    new Gauge({
      name: 'feedbot_gateway_heartbeat_seconds',
      help: 'Round trip of the last gateway heartbeat, per shard; absent before the first one.',
      labelNames: ['shard'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [id, shard] of shards()) if (shard.ping >= 0) this.set({ shard: String(id) }, shard.ping / 1000);
      },
    });
  }

  /** Where the gauges read the gateway's shards, the number of interactions in flight and readiness. */
  watch(sources: { gateway?: GatewaySource; inFlight?: () => number; readiness?: () => Promise<{ ready: boolean }> }): void {
    if (sources.gateway) this.gateway = sources.gateway;
    if (sources.inFlight) this.inFlight = sources.inFlight;
    if (sources.readiness) this.readiness = sources.readiness;
  }

  readonly onInteraction: InteractionListener = (r) => {
    const labels = { kind: r.kind, command: r.command, subcommand: r.subcommand };
    this.interactions.inc({ ...labels, outcome: boundedOutcome(r.outcome) });
    this.answerSeconds.observe(labels, r.latencyMs / 1000);
    if (r.ackLatencyMs !== null) this.ackSeconds.observe(labels, r.ackLatencyMs / 1000);
    if (r.deferred) this.deferrals.inc(labels);
    if (r.missedDeadline) this.missedDeadlines.inc(labels);
  };

  readonly onClaim = (r: ClaimRecord): void => {
    this.claims.inc({ outcome: r.outcome });
    this.claimSeconds.observe(r.durationMs / 1000);
  };

  readonly onResponse: ResponseListener = (e) => {
    // A joined GET replays the events of a request someone else sent: count that request once.
    if (e.joined) return;
    if (e.kind === 'refused') {
      this.gateRefusals.inc({ route: e.route });
      if (e.remaining !== null) this.lowestBudget.observe(e.remaining);
      return;
    }
    this.apiRequests.inc({ route: e.route, status: e.kind === 'status' ? httpStatus(e.status) : e.kind });
    this.apiSeconds.observe({ route: e.route }, e.latencyMs / 1000);
    if (e.retrying) this.apiRetries.inc({ route: e.route });
    if (e.remaining !== null) {
      this.budget.observe(e.remaining);
      this.lowestBudget.observe(e.remaining);
    }
  };

  readonly onCacheLookup: CacheLookupListener = (lookup) => {
    this.cacheLookups.inc({ use: lookup.use, result: lookup.hit ? 'hit' : 'miss' });
  };

  readonly onKeyStoreOperation: KeyStoreOperationListener = (o) => {
    this.storeOps.inc({ op: o.op, outcome: o.outcome });
    this.storeSeconds.observe({ op: o.op }, o.durationMs / 1000);
  };

  readonly onHttpRequest: HttpRequestListener = (r) => {
    this.httpRequests.inc({ outcome: r.outcome });
    if (r.outcome === 'answered' || r.outcome === 'ping') this.httpSeconds.observe(r.latencyMs / 1000);
  };

  readonly onGuildForgotten: GuildForgottenListener = (e) => {
    this.guildsForgotten.inc({ reason: e.reason === 'command' ? 'command' : 'removed' });
  };

  // The health sweeps' reports (src/health/sweep/events.ts).
  readonly onSweepReport: SweepReportListener = (r) => {
    if (r.type === 'sweep') this.healthSweeps.inc({ result: r.result });
    else if (r.type === 'change') {
      this.healthChanges.inc({ kind: r.kind });
      this.auditPosts.inc({ kind: r.kind });
    } else if (r.type === 'upstream') this.sweepUpstream.inc({ route: r.route });
    else {
      this.digestsPosted.inc();
      this.auditPosts.inc({ kind: 'weekly_digest' });
    }
  };

  /** The exposition in Prometheus text format, with its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
