/**
 * Routes every interaction to its command module, keeps the 3-second deadline, turns failures
 * into explanations and writes exactly one log line per interaction — from the same record its
 * observers (metrics) receive. Nothing thrown here escapes: one interaction's failure never takes
 * the process down.
 */
import type { AutocompleteInteraction, Interaction } from 'discord.js';
import { UnauthorizedError } from '../api/errors.js';
import { noticeRejectedKey } from '../audit/key-stopped.js';
import type { AppCommand, CommandModule } from './command.js';
import { HandlerContext, type BotServices } from './context.js';
import { discordRefusal, explain, type DiscordRefusal, type Explanation, type FailureDetail } from './explain.js';
import { interactionLabels, logEntry, type InteractionListener, type InteractionRecord } from './interaction-record.js';
import { DEFAULT_DEFER_AFTER_MS, Responder, missedAckDeadline, type RepliableInteraction } from './responder.js';
import { routeFor, routeTable } from './routes.js';
import { trackUpstream } from './upstream-scope.js';
import type { ClaimRecord, InteractionClaims } from './claims.js';
import { Observers } from '../observers.js';
import { errorEmbed } from '../render/notice.js';
import { tracer, type TraceSpan } from '../tracing/tracer.js';

/** Autocomplete must be answered within 3 s and cannot be deferred; leave margin for the call. */
export const AUTOCOMPLETE_BUDGET_MS = 2_000;

export interface InteractionRouter {
  handle(interaction: Interaction): Promise<void>;
  /** Resolves when every interaction in progress has finished (for a clean shutdown). */
  drain(): Promise<void>;
  readonly inFlight: number;
  /** Calls `listener` with each finished interaction's record (the one its log line is written from). */
  onInteraction(listener: InteractionListener): () => void;
  /** Calls `listener` with each claim's outcome (only when the router claims, see RouterOptions). */
  onClaim(listener: (record: ClaimRecord) => void): () => void;
}

interface RouterOptions {
  /**
   * Gateway: claim each interaction before any effect (claims.ts); one lost is left to the
   * process that won it. Absent (HTTP mode, tests of one process): every interaction is handled.
   */
  claims?: InteractionClaims;
}

export function createRouter(commands: readonly AppCommand[], services: BotServices, opts: RouterOptions = {}): InteractionRouter {
  const table = routeTable(commands);
  const running = new Set<Promise<void>>();
  const observers = new Observers<InteractionRecord>('interaction');
  const claimObservers = new Observers<ClaimRecord>('interaction claim');
  // Each interaction runs in its own scope; the API client's responses fill it for the log line.
  const upstream = trackUpstream(services.api);
  const clock = services.now ?? Date.now;

  /** Whether this process answers `interaction`: it won the claim, or could not ask. */
  async function claimed(interaction: Interaction, claims: InteractionClaims, span: TraceSpan): Promise<boolean> {
    const started = performance.now();
    // An implementation that throws is a store that did not answer.
    const outcome = await tracer().inSpan('interaction claim', { kind: 'client', attributes: { 'feedbot.claim.store': claims.kind } }, async (claimSpan) => {
      const result = await claims.claim(interaction.id).catch(() => 'unavailable' as const);
      claimSpan.set({ 'feedbot.claim.outcome': result });
      return result;
    });
    claimObservers.emit({ interactionId: interaction.id, outcome, durationMs: performance.now() - started });
    span.set({ 'feedbot.claim.outcome': outcome });
    if (outcome !== 'lost') return true;
    services.logger.debug({ interactionId: interaction.id, store: claims.kind }, 'interaction answered by another process');
    return false;
  }

  async function run(interaction: Interaction, started: number, receivedAt: number, span: TraceSpan): Promise<void> {
    let label: string | undefined;
    const end = new Ending();
    let responder: Responder | undefined;
    // Autocomplete: the choices are the acknowledgement and the final answer at once.
    let choicesAt: number | undefined;
    try {
      if (interaction.isAutocomplete()) {
        label = `${interaction.commandName} (autocomplete)`;
        const ctx = new HandlerContext(services, interaction, undefined);
        const result = await runAutocomplete(table.commands.get(interaction.commandName), interaction, ctx);
        if (interaction.responded) choicesAt = clock();
        end.outcome = result.outcome;
        // No explanation reaches anyone here: a code failure keeps its ref for the log, Discord's refusal needs none.
        if (result.error) end.explained(result.error, result.cause, result.error.discord ? undefined : result.error.ref);
        return;
      }
      const route = routeFor(interaction, table);
      if (!route) return; // Other interaction types are not ours.
      label = route.label;
      responder = new Responder(route.interaction, {
        mode: route.mode,
        ephemeral: route.ephemeral,
        deferAfterMs: services.deferAfterMs ?? DEFAULT_DEFER_AFTER_MS,
        now: services.now,
      });
      const context = new HandlerContext(services, interaction, responder);
      let keyNotice: Promise<void> | undefined;

      responder.arm();
      try {
        if (!route.handler) {
          end.outcome = 'unknown_command';
          await responder.fail({ embeds: [errorEmbed(context.t('error.unknownCommand'))] });
          return;
        }
        await route.handler(context);
      } catch (error) {
        const e = explain(error, { t: context.t });
        end.explained(e, error, undefined);
        // The stored key stopped working (regenerated, revoked): the audit channel hears it once per key.
        if (error instanceof UnauthorizedError && interaction.guildId) keyNotice = noticeRejectedKey(services, interaction.guildId, interaction.locale);
        if (!canStillAnswer(e, route.interaction)) return;
        await responder.fail({ embeds: [errorEmbed(e.message)] });
        // Only now has the user read the reference (unless a failed deferral left nothing to answer).
        if (route.interaction.deferred || route.interaction.replied) end.ref = e.ref;
      } finally {
        responder.dispose();
        await keyNotice;
      }
    } catch (error) {
      // Answering Discord itself failed (expired token, network). Log it; never rethrow.
      end.answerFailed(error);
    } finally {
      const ackAt = responder ? responder.acknowledgedAt : choicesAt;
      const latencyMs = performance.now() - started;
      const record: InteractionRecord = {
        interactionId: interaction.id,
        guildId: interaction.guildId ?? null,
        userId: interaction.user.id,
        ...interactionLabels(interaction, table),
        label,
        outcome: end.outcome,
        level: end.level,
        upstreamStatus: upstream.lastStatus(),
        latencyMs,
        // Wall clock (the responder's) against a monotonic one: the acknowledgement is never later than the end.
        ackLatencyMs: ackAt === undefined ? null : Math.min(latencyMs, Math.max(0, ackAt - receivedAt)),
        deferred: responder?.deferred ?? false,
        // Only what is ours to answer (label set) can miss the deadline.
        missedDeadline: label !== undefined && missedAckDeadline(interaction.createdTimestamp, receivedAt, ackAt),
        ...end.failureFields(),
      };
      spanOutcome(span, record);
      services.logger[record.level](logEntry(record), 'interaction');
      observers.emit(record);
    }
  }

  return {
    handle(interaction) {
      // Receipt is now: the claim's time counts in the answer's latency, as it does for Discord.
      const started = performance.now();
      const receivedAt = clock();
      const claims = opts.claims;
      // One trace per interaction: the claim, key store, feed API and Discord calls are its children.
      const attributes = { 'discord.interaction.id': interaction.id, 'discord.interaction.type': interaction.type, 'discord.guild.id': interaction.guildId ?? undefined };
      const p = tracer().inSpan('interaction', { kind: 'server', root: true, attributes }, (span) =>
        upstream.run(async () => {
          if (claims && !(await claimed(interaction, claims, span))) return;
          await run(interaction, started, receivedAt, span);
        }),
      );
      running.add(p);
      void p.finally(() => running.delete(p));
      return p;
    },
    async drain() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    get inFlight() {
      return running.size;
    },
    onInteraction: (listener) => observers.add(listener),
    onClaim: (listener) => claimObservers.add(listener),
  };
}

/** The interaction's span learns what its log line says: which command, how it ended. */
function spanOutcome(span: TraceSpan, record: InteractionRecord): void {
  if (!tracer().enabled) return;
  if (record.label) span.rename(`interaction ${record.label}`);
  span.set({
    'feedbot.command': record.label,
    'feedbot.outcome': record.outcome,
    'feedbot.deferred': record.deferred,
    'feedbot.missed_deadline': record.missedDeadline,
    'feedbot.ref': record.ref,
  });
  if (record.level === 'error') span.failed(record.outcome);
}

async function runAutocomplete(
  command: CommandModule | undefined,
  interaction: AutocompleteInteraction,
  ctx: HandlerContext,
): Promise<{ outcome: string; error?: Explanation; cause?: unknown }> {
  if (!command?.autocomplete) {
    await interaction.respond([]);
    return { outcome: 'unknown_command' };
  }
  try {
    await command.autocomplete(interaction, ctx);
    return { outcome: 'ok' };
  } catch (error) {
    const e = explain(error, { t: ctx.t });
    // Autocomplete has no room for explanations: an empty list, and the reason in the log. When
    // Discord refused the list (after discord.js' own retries), an empty one would be refused too.
    if (!interaction.responded && !e.discord) await interaction.respond([]).catch(() => undefined);
    return { outcome: e.outcome, error: e, cause: error };
  }
}

/**
 * Whether an explanation can still reach the user after `e`. A Discord refusal of an interaction
 * nothing acknowledged leaves no way to answer (and a retry of a refused callback would only be
 * refused again, past the deadline); one of an expired or foreign interaction neither. After a
 * deferral, a failed edit can still be followed by an explanation.
 */
function canStillAnswer(e: Explanation, interaction: RepliableInteraction): boolean {
  if (!e.discord) return true;
  return !e.discord.gone && (interaction.deferred || interaction.replied);
}

const SEVERITY = { info: 0, warn: 1, error: 2 } as const;

/** How an interaction ended, as its log line and metrics record will say. */
class Ending {
  outcome = 'ok';
  level: 'info' | 'warn' | 'error' = 'info';
  /** The reference the user read (or, for autocomplete, the log's only). */
  ref: string | undefined;
  private failure: unknown;
  private discord: DiscordRefusal | undefined;
  private detail: FailureDetail | undefined;

  /** The handler failed with `error`, explained as `e`; `ref` is set once the user has read it. */
  explained(e: Explanation, error: unknown, ref: string | undefined): void {
    this.outcome = e.outcome;
    this.level = e.level;
    this.ref = ref;
    this.discord = e.discord;
    this.detail = e.detail;
    // A Discord refusal is logged whatever its level: `err` names the call it refused.
    if (e.level === 'error' || e.discord) this.failure = error;
  }

  /** Discord refused or failed the answer (or the explanation): `discord_error`, once, after the handler's outcome. */
  answerFailed(error: unknown): void {
    const refusal = discordRefusal(error);
    if (!this.outcome.split('+').includes('discord_error')) {
      this.outcome = this.outcome === 'ok' ? 'discord_error' : `${this.outcome}+discord_error`;
    }
    const level = refusal?.gone ? 'warn' : 'error';
    if (SEVERITY[level] > SEVERITY[this.level]) this.level = level;
    this.discord ??= refusal;
    this.failure ??= error;
  }

  failureFields(): Pick<InteractionRecord, 'ref' | 'error' | 'discord' | 'detail'> {
    return {
      ...(this.ref ? { ref: this.ref } : {}),
      ...(this.failure ? { error: this.failure } : {}),
      ...(this.discord ? { discord: this.discord } : {}),
      ...(this.detail ? { detail: this.detail } : {}),
    };
  }
}

