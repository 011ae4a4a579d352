/**
 * Routes every interaction to its command module, keeps the 3-second deadline, turns failures
 * into explanations and writes exactly one log line per interaction — from the same record its
 * observers (metrics) receive. Nothing thrown here escapes: one interaction's failure never takes
 * the process down.
 */
import type { AutocompleteInteraction, Interaction } from 'discord.js';
import type { CommandModule } from './command.js';
import { HandlerContext, type BotServices } from './context.js';
import { explain, type Explanation } from './explain.js';
import { interactionLabels, logEntry, type InteractionListener, type InteractionRecord } from './interaction-record.js';
import { DEFAULT_DEFER_AFTER_MS, Responder, missedAckDeadline, type RepliableInteraction } from './responder.js';
import { routeFor, routeTable } from './routes.js';
import { trackUpstream } from './upstream-scope.js';
import { Observers } from '../observers.js';
import { errorEmbed } from '../render/notice.js';

/** Autocomplete must be answered within 3 s and cannot be deferred; leave margin for the call. */
export const AUTOCOMPLETE_BUDGET_MS = 2_000;

export interface InteractionRouter {
  handle(interaction: Interaction): Promise<void>;
  /** Resolves when every interaction in progress has finished (for a clean shutdown). */
  drain(): Promise<void>;
  readonly inFlight: number;
  /** Calls `listener` with each finished interaction's record (the one its log line is written from). */
  onInteraction(listener: InteractionListener): () => void;
}

export function createRouter(commands: readonly CommandModule[], services: BotServices): InteractionRouter {
  const table = routeTable(commands);
  const running = new Set<Promise<void>>();
  const observers = new Observers<InteractionRecord>('interaction');
  // Each interaction runs in its own scope; the API client's responses fill it for the log line.
  const upstream = trackUpstream(services.api);
  const clock = services.now ?? Date.now;

  async function run(interaction: Interaction): Promise<void> {
    const started = performance.now();
    const receivedAt = clock();
    let label: string | undefined;
    let outcome = 'ok';
    let level: 'info' | 'warn' | 'error' = 'info';
    let failure: unknown;
    let ref: string | undefined;
    let responder: Responder | undefined;
    // Autocomplete: the choices are the acknowledgement and the final answer at once.
    let choicesAt: number | undefined;
    try {
      if (interaction.isAutocomplete()) {
        label = `${interaction.commandName} (autocomplete)`;
        const ctx = new HandlerContext(services, interaction, undefined);
        const result = await runAutocomplete(table.commands.get(interaction.commandName), interaction, ctx);
        if (interaction.responded) choicesAt = clock();
        outcome = result.outcome;
        if (result.error) {
          level = result.error.level;
          ref = result.error.ref;
          if (result.error.level === 'error') failure = result.cause;
        }
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

      responder.arm();
      try {
        if (!route.handler) {
          outcome = 'unknown_command';
          await responder.fail({ embeds: [errorEmbed(context.t('error.unknownCommand'))] });
          return;
        }
        await route.handler(context);
      } catch (error) {
        const e = explain(error, { t: context.t });
        outcome = e.outcome;
        level = e.level;
        ref = e.ref;
        if (e.level === 'error') failure = error;
        await responder.fail({ embeds: [errorEmbed(e.message)] });
      } finally {
        responder.dispose();
      }
    } catch (error) {
      // Answering Discord itself failed (expired token, network). Log it; never rethrow.
      outcome = outcome === 'ok' ? 'discord_error' : `${outcome}+discord_error`;
      level = 'error';
      failure ??= error;
    } finally {
      const ackAt = responder ? responder.acknowledgedAt : choicesAt;
      const latencyMs = performance.now() - started;
      const record: InteractionRecord = {
        interactionId: interaction.id,
        guildId: interaction.guildId ?? null,
        userId: interaction.user.id,
        ...interactionLabels(interaction, table),
        label,
        outcome,
        level,
        upstreamStatus: upstream.lastStatus(),
        latencyMs,
        // Wall clock (the responder's) against a monotonic one: the acknowledgement is never later than the end.
        ackLatencyMs: ackAt === undefined ? null : Math.min(latencyMs, Math.max(0, ackAt - receivedAt)),
        deferred: responder?.deferred ?? false,
        // Only what is ours to answer (label set) can miss the deadline.
        missedDeadline: label !== undefined && missedAckDeadline(interaction.createdTimestamp, receivedAt, ackAt),
        ...(ref ? { ref } : {}),
        ...(failure ? { error: failure } : {}),
      };
      services.logger[level](logEntry(record), 'interaction');
      observers.emit(record);
    }
  }

  return {
    handle(interaction) {
      const p = upstream.run(() => run(interaction));
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
  };
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
    // Autocomplete has no room for explanations: an empty list, and the reason in the log.
    if (!interaction.responded) await interaction.respond([]).catch(() => undefined);
    const e = explain(error, { t: ctx.t });
    return { outcome: e.outcome, error: e, cause: error };
  }
}

export type { RepliableInteraction };
