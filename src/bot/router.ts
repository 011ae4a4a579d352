/**
 * Routes every interaction to its command module, keeps the 3-second deadline, turns failures
 * into explanations and writes exactly one log line per interaction. Nothing thrown here escapes:
 * one interaction's failure never takes the process down.
 */
import type { AutocompleteInteraction, Interaction } from 'discord.js';
import type { CommandModule } from './command.js';
import { customIdCommand } from './command.js';
import { HandlerContext, type BotServices } from './context.js';
import { explain, type Explanation } from './explain.js';
import { DEFAULT_DEFER_AFTER_MS, Responder, type RepliableInteraction } from './responder.js';
import { errorEmbed } from '../render/feeds.js';

/** Autocomplete must be answered within 3 s and cannot be deferred; leave margin for the call. */
export const AUTOCOMPLETE_BUDGET_MS = 2_000;

export interface InteractionRouter {
  handle(interaction: Interaction): Promise<void>;
  /** Resolves when every interaction in progress has finished (for a clean shutdown). */
  drain(): Promise<void>;
  readonly inFlight: number;
}

export function createRouter(commands: readonly CommandModule[], services: BotServices): InteractionRouter {
  const byName = new Map(commands.map((c) => [c.data.name, c]));
  const running = new Set<Promise<void>>();

  async function run(interaction: Interaction): Promise<void> {
    const started = performance.now();
    const log: Record<string, unknown> = {
      interactionId: interaction.id,
      guild: interaction.guildId ?? null,
      user: interaction.user.id,
    };
    let ctx: HandlerContext | undefined;
    let outcome = 'ok';
    let level: 'info' | 'warn' | 'error' = 'info';
    let failure: unknown;
    let ref: string | undefined;
    try {
      if (interaction.isAutocomplete()) {
        log.command = `${interaction.commandName} (autocomplete)`;
        ctx = new HandlerContext(services, interaction, undefined);
        const result = await runAutocomplete(byName.get(interaction.commandName), interaction, ctx);
        outcome = result.outcome;
        if (result.error) {
          level = result.error.level;
          ref = result.error.ref;
          if (result.error.level === 'error') failure = result.cause;
        }
        return;
      }
      let command: CommandModule | undefined;
      let responder: Responder;
      let handler: (() => Promise<void>) | undefined;
      if (interaction.isChatInputCommand()) {
        const sub = interaction.options.getSubcommand(false);
        log.command = sub ? `${interaction.commandName} ${sub}` : interaction.commandName;
        command = byName.get(interaction.commandName);
        responder = new Responder(interaction, {
          mode: 'reply',
          ephemeral: command?.ephemeral(interaction) ?? true,
          deferAfterMs: services.deferAfterMs ?? DEFAULT_DEFER_AFTER_MS,
          now: services.now,
        });
        ctx = new HandlerContext(services, interaction, responder);
        const c = ctx;
        if (command) handler = () => command!.execute(interaction, c);
      } else if (interaction.isButton()) {
        log.command = `button ${interaction.customId.split(':').slice(0, 2).join(':')}`;
        command = byName.get(customIdCommand(interaction.customId));
        responder = new Responder(interaction, {
          mode: command?.buttonMode?.(interaction) ?? 'update',
          ephemeral: true,
          deferAfterMs: services.deferAfterMs ?? DEFAULT_DEFER_AFTER_MS,
          now: services.now,
        });
        ctx = new HandlerContext(services, interaction, responder);
        const c = ctx;
        if (command?.button) handler = () => command!.button!(interaction, c);
      } else if (interaction.isModalSubmit()) {
        log.command = `modal ${interaction.customId.split(':').slice(0, 2).join(':')}`;
        command = byName.get(customIdCommand(interaction.customId));
        responder = new Responder(interaction, {
          mode: 'reply',
          ephemeral: true,
          deferAfterMs: services.deferAfterMs ?? DEFAULT_DEFER_AFTER_MS,
          now: services.now,
        });
        ctx = new HandlerContext(services, interaction, responder);
        const c = ctx;
        if (command?.modal) handler = () => command!.modal!(interaction, c);
      } else {
        return; // Other interaction types are not ours.
      }

      responder.arm();
      try {
        if (!handler) {
          outcome = 'unknown_command';
          await responder.fail({ embeds: [errorEmbed(ctx.t('error.unknownCommand'))] });
          return;
        }
        await handler();
      } catch (error) {
        const e = explain(error, { t: ctx.t, feedId: ctx.feedId });
        outcome = e.outcome;
        level = e.level;
        ref = e.ref;
        if (e.upstreamStatus !== undefined) ctx.upstreamStatus = e.upstreamStatus;
        if (e.level === 'error') failure = error;
        await responder.fail({ embeds: [errorEmbed(e.message)] });
      } finally {
        responder.dispose();
        if (responder.deferred) log.deferred = true;
      }
    } catch (error) {
      // Answering Discord itself failed (expired token, network). Log it; never rethrow.
      outcome = outcome === 'ok' ? 'discord_error' : `${outcome}+discord_error`;
      level = 'error';
      failure ??= error;
    } finally {
      const entry = {
        ...log,
        outcome,
        upstreamStatus: ctx?.upstreamStatus ?? null,
        latencyMs: Math.round(performance.now() - started),
        ...(ref ? { ref } : {}),
        ...(failure ? { err: failure } : {}),
      };
      services.logger[level](entry, 'interaction');
    }
  }

  return {
    handle(interaction) {
      const p = run(interaction);
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
