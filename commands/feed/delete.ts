/**
 * /feed delete <id> — asks first: a private confirmation with Delete/Cancel that expires. Manage
 * Server or a feed-manager role is required to ask, and checked again when Delete is pressed (it
 * may have been revoked).
 */
import type { ButtonInteraction, SlashCommandSubcommandBuilder } from 'discord.js';
import { button, type ComponentRoute, type SlashDeclaration } from '../../src/bot/command.js';
import { customId, int, oneOf, optional, snowflake, withFormerFormat, type Decoded } from '../../src/bot/custom-id.js';
import { UserError } from '../../src/bot/errors.js';
import { localize } from '../../src/i18n/localize.js';
import { confirmationExpiredEmbed, deleteCancelledEmbed, deleteConfirmation, deletedEmbed } from '../../src/render/delete.js';
import { FEED_ID, boundedOption, feedIdOption } from './integer-options.js';

const DEFAULT_CONFIRM_TTL_MS = 60_000;

const confirmationParts = {
  answer: oneOf(['yes', 'no']),
  id: int({ min: 1 }),
  userId: snowflake,
  /** Unix seconds: the confirmation is refused after it, whatever the buttons show. */
  expires: int({ min: 1 }),
};

/**
 * `asked`: the id of the /feed delete interaction that asked, unique to each confirmation; it
 * keys the confirmation's expiry timer. Buttons posted before it was added read without one
 * (their timers died with the process that posted them).
 */
export const deleteConfirmId = withFormerFormat(
  customId('feed:delete', { ...confirmationParts, asked: optional(snowflake) }),
  customId('feed:delete', confirmationParts),
  (former) => ({ ...former, asked: undefined }),
);
type Confirmation = Omit<Decoded<typeof deleteConfirmId>, 'answer'>;

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('delete'), { name: 'cmd.feed.delete.name', description: 'cmd.feed.delete.description' }).addIntegerOption((o) =>
    localize(boundedOption(o, FEED_ID), { name: 'opt.id.name', description: 'opt.id.delete.description' }).setRequired(true).setAutocomplete(true),
  );
}

/**
 * Timers that take an open confirmation's buttons away when it expires (components never do),
 * by the id of the interaction that asked. A timer is released when it fires or when one of its
 * buttons is pressed; either way nothing keeps the asking interaction alive after.
 */
class ExpiryTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  start(key: string, ms: number, onExpiry: () => void): void {
    this.cancel(key);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      onExpiry();
    }, ms);
    timer.unref?.();
    this.timers.set(key, timer);
  }

  cancel(key: string | undefined): void {
    if (key === undefined) return;
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
  }

  /** On shutdown: confirmations left open just expire by their custom_id. */
  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

export interface DeleteFeature {
  subcommand: SlashDeclaration;
  confirmButton: ComponentRoute<ButtonInteraction>;
  dispose(): void;
}

/** One per running bot: the expiry timers belong to it. */
export function createDeleteFeature(): DeleteFeature {
  const timers = new ExpiryTimers();

  const subcommand: SlashDeclaration = {
    guildOnly: true,
    requires: { permission: 'ManageFeeds', action: 'deleteFeed' },
    // The confirmation is private to the admin.
    ephemeral: true,
    async run(interaction, ctx) {
      const id = feedIdOption(interaction);
      // The list is usually cached by autocomplete; it lets us refuse an unknown id before asking.
      const feeds = await ctx.call((api, auth) => api.listFeeds(auth));
      const feed = feeds.feeds.find((f) => f.id === id);
      if (!feed) throw new UserError('error.notFound', { id });

      const ttl = ctx.services.confirmTtlMs ?? DEFAULT_CONFIRM_TTL_MS;
      const expires = new Date(ctx.now() + ttl);
      const confirmation: Confirmation = { id, userId: interaction.user.id, expires: Math.ceil(expires.getTime() / 1000), asked: interaction.id };
      const t = ctx.t;
      await ctx.respond.send(
        deleteConfirmation(t, feed, expires, {
          confirm: deleteConfirmId.encode({ answer: 'yes', ...confirmation }),
          cancel: deleteConfirmId.encode({ answer: 'no', ...confirmation }),
        }),
      );
      timers.start(interaction.id, ttl, () => {
        void interaction
          .editReply({ embeds: [confirmationExpiredEmbed(t)], components: [] })
          .catch((error: unknown) => ctx.services.logger.debug({ err: error }, 'could not expire a delete confirmation'));
      });
    },
  };

  const confirmButton = button({
    id: deleteConfirmId,
    guildOnly: true,
    invokerOnly: true,
    answer: 'update',
    ephemeral: true,
    async run(_interaction, ctx, { answer, asked, ...confirmation }) {
      // Whatever this press leads to, its confirmation's timer is done: the answer replaces the
      // confirmation, or a failure is explained apart and the custom_id still refuses the buttons
      // after their expiry. A timer left armed would hold the asking interaction until it fires.
      timers.cancel(asked);
      if (ctx.now() > confirmation.expires * 1000) {
        await ctx.respond.send({ embeds: [confirmationExpiredEmbed(ctx.t)], components: [] });
        return;
      }
      if (answer !== 'yes') {
        await ctx.respond.send({ embeds: [deleteCancelledEmbed(ctx.t, confirmation.id)], components: [] });
        return;
      }
      // Not a declared precondition: Cancel and an expired confirmation need no permission.
      await ctx.requireFeedManager('deleteFeed');
      const result = await ctx.call((api, auth) => api.deleteFeed(auth, confirmation.id));
      await ctx.respond.send({ embeds: [deletedEmbed(ctx.t, confirmation.id, result)], components: [] });
    },
  });

  return { subcommand, confirmButton, dispose: () => timers.dispose() };
}
