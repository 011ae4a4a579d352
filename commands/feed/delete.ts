/**
 * /feed delete [id | canal:#channel | problemas:true] — without an option, a picker of the
 * server's feeds (delete-picker.ts) leads to the same confirmation as a bulk delete. Asks first: a private confirmation with
 * Delete/Cancel that expires. One feed here; every feed of a channel, or every feed with a health
 * warning, in bulk-delete.ts. Manage Server or a feed-manager role is required to ask, and checked
 * again when Delete is pressed (it may have been revoked).
 */
import { ChannelType, type AnySelectMenuInteraction, type ButtonInteraction, type ChatInputCommandInteraction, type SlashCommandSubcommandBuilder } from 'discord.js';
import { RateGateRefusalError, RateLimitedError, mayHaveDoneWork } from '../../src/api/errors.js';
import type { FeedApiClient } from '../../src/api/client.js';
import type { DeleteFeedResponse } from '@feedbot/feed-api-contract';
import type { FeedSummary } from '../../src/audit/events.js';
import { button, type ComponentRoute, type SlashDeclaration } from '../../src/interactions/command.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { customId, int, oneOf, snowflake, withFormerFormat, type CustomIdCodec, type Decoded } from '../../src/interactions/custom-id.js';
import { InvalidOptionError, UnconfirmedWriteError, UserError } from '../../src/interactions/errors.js';
import { feedWarnings, healthView, warningText } from '../../src/health/feed-health.js';
import type { Translator } from '../../src/i18n/index.js';
import { localize } from '../../src/i18n/localize.js';
import { confirmationExpiredEmbed, deleteCancelledEmbed, deleteConfirmation, deletedEmbed } from './render-delete.js';
import { createBulkDelete, type BulkTarget } from './bulk-delete.js';
import { createDeletePicker } from './delete-picker.js';
import { PendingConfirmations, confirmationExpiry } from '../../src/interactions/confirmations.js';
import { expireConfirmation, feedSummary } from './confirmations.js';
import { FeedSummarySchema } from './pending-values.js';
import { boundedOption } from '../../src/interactions/integer-options.js';
import { FEED_ID, feedIdOption } from './integer-options.js';

const CHANNEL_TYPES = [ChannelType.GuildText, ChannelType.GuildAnnouncement] as const;

const confirmationParts = {
  answer: oneOf(['yes', 'no']),
  id: int({ min: 1 }),
  userId: snowflake,
  /** Unix seconds: the confirmation is refused after it, whatever the buttons show. */
  expires: int({ min: 1 }),
};

/**
 * `asked`: the id of the /feed delete interaction that asked, unique to each confirmation; it
 * keys the confirmation's expiry timer and what it is about. Buttons posted before it was added
 * read without one (their timers died with the process that posted them); only that former
 * format, with no `asked` part at all, is read as such a button: an `asked` that names no open
 * question is an expired question.
 */
const formerDeleteConfirmId = customId('feed:delete', confirmationParts);
/** What a press reads: `asked` is absent only from a button of the former format. */
type DeleteConfirmState = Decoded<typeof formerDeleteConfirmId> & { asked: string | undefined };
/** Writes (and reads) `asked` as a snowflake, never absent: encode() is only ever given one. */
const currentDeleteConfirmId: CustomIdCodec<DeleteConfirmState> = customId('feed:delete', { ...confirmationParts, asked: snowflake });
export const deleteConfirmId = withFormerFormat(currentDeleteConfirmId, formerDeleteConfirmId, (former) => ({ ...former, asked: undefined }));
type Confirmation = Omit<Decoded<typeof deleteConfirmId>, 'answer'>;

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('delete'), { name: 'cmd.feed.delete.name', description: 'cmd.feed.delete.description' })
    .addIntegerOption((o) =>
      localize(boundedOption(o, FEED_ID), { name: 'opt.id.name', description: 'opt.id.delete.description' }).setAutocomplete(true),
    )
    .addChannelOption((o) =>
      localize(o.setName('canal'), { name: 'opt.canal.name', description: 'opt.canal.delete.description' }).addChannelTypes(...CHANNEL_TYPES),
    )
    .addBooleanOption((o) => localize(o.setName('problemas'), { name: 'opt.problemas.name', description: 'opt.problemas.delete.description' }));
}

type DeleteTarget = { kind: 'one'; id: number } | { kind: 'pick' } | BulkTarget;

/** At most one of `id`, `canal` and `problemas` (true) says what to delete; none opens the picker. */
function deleteTarget(interaction: ChatInputCommandInteraction, t: Translator): DeleteTarget {
  const given: DeleteTarget[] = [];
  if (interaction.options.getInteger(FEED_ID.name) !== null) given.push({ kind: 'one', id: feedIdOption(interaction) });
  const channel = interaction.options.getChannel('canal', false, [...CHANNEL_TYPES]);
  if (channel) given.push({ kind: 'channel', channelId: channel.id });
  if (interaction.options.getBoolean('problemas') === true) given.push({ kind: 'problems' });
  if (given.length === 1) return given[0]!;
  if (given.length === 0) return { kind: 'pick' };
  throw new InvalidOptionError('bulkDelete.oneTarget', { id: t('opt.id.name'), canal: t('opt.canal.name'), problemas: t('opt.problemas.name') });
}

interface DeleteFeature {
  subcommand: SlashDeclaration;
  confirmButton: ComponentRoute<ButtonInteraction>;
  bulkConfirmButton: ComponentRoute<ButtonInteraction>;
  pickerPageButton: ComponentRoute<ButtonInteraction>;
  pickerSelect: ComponentRoute<AnySelectMenuInteraction>;
  dispose(): void;
}

/** One per running bot: the open confirmations (and running bulk deletes) belong to it. */
export function createDeleteFeature(): DeleteFeature {
  /** The feed each open confirmation is about, for the audit post after Delete. */
  const pending = new PendingConfirmations<FeedSummary>('delete', FeedSummarySchema);
  const bulk = createBulkDelete();
  const picker = createDeletePicker(bulk);

  async function askOne(interaction: ChatInputCommandInteraction, ctx: HandlerContext, id: number): Promise<void> {
    // The list is usually cached by autocomplete; it lets us refuse an unknown id before asking.
    const [feeds, view] = await Promise.all([ctx.call((api, auth) => api.listFeeds(auth)), healthView(ctx.services, ctx.guildId())]);
    const feed = feeds.feeds.find((f) => f.id === id);
    if (!feed) throw new UserError('error.notFound', { id });

    const { ttl, expires } = confirmationExpiry(ctx);
    const confirmation: Confirmation = { id, userId: interaction.user.id, expires: Math.ceil(expires.getTime() / 1000), asked: interaction.id };
    const t = ctx.t;
    await pending.start(ctx, interaction.id, feedSummary(feed), ttl, expireConfirmation(interaction, ctx));
    await ctx.respond.send(
      deleteConfirmation(
        t,
        feed,
        expires,
        {
          confirm: deleteConfirmId.encode({ answer: 'yes', ...confirmation }),
          cancel: deleteConfirmId.encode({ answer: 'no', ...confirmation }),
        },
        { marks: warningText(t, feedWarnings(feed, view), view.staleAfterDays), viaRoleId: ctx.actor().viaRoleId },
      ),
    );
  }

  const subcommand: SlashDeclaration = {
    guildOnly: true,
    requires: { permission: 'ManageFeeds', action: 'deleteFeed' },
    // The confirmation is private to the admin.
    ephemeral: true,
    async run(interaction, ctx) {
      const target = deleteTarget(interaction, ctx.t);
      if (target.kind === 'one') await askOne(interaction, ctx, target.id);
      else if (target.kind === 'pick') await picker.open(ctx, interaction.user.id);
      else await bulk.ask(interaction, ctx, target);
    },
  };

  const confirmButton = button({
    id: deleteConfirmId,
    guildOnly: true,
    invokerOnly: true,
    answer: 'update',
    ephemeral: true,
    async run(interaction, ctx, { answer, asked, ...confirmation }) {
      // Whatever this press leads to, its confirmation is done: the answer replaces it, or a
      // failure is explained apart and the custom_id still refuses the buttons after their
      // expiry. A timer left armed would hold the asking interaction until it fires.
      const stored = await pending.take(ctx, asked);
      // Only a button of the former format has no question to find; one that names a question
      // nobody holds (answered, expired, asked in another guild, or a mangled id) is expired.
      const feed = stored ?? (asked === undefined ? { id: confirmation.id } : undefined);
      if (feed === undefined || ctx.now() > confirmation.expires * 1000) {
        await ctx.respond.send({ embeds: [confirmationExpiredEmbed(ctx.t)], components: [] });
        return;
      }
      if (answer !== 'yes') {
        await ctx.respond.send({ embeds: [deleteCancelledEmbed(ctx.t, confirmation.id)], components: [] });
        return;
      }
      // Not a declared precondition: Cancel and an expired confirmation need no permission.
      const actor = await ctx.requireFeedManager('deleteFeed');
      let result: Awaited<ReturnType<FeedApiClient['deleteFeed']>>;
      try {
        result = await deleteOrLook(ctx, confirmation.id);
      } catch (error) {
        // Refused by the request budget (the API's 429, or the gate before sending): nothing was
        // deleted and the explanation says to try again after the reset, so the same Delete
        // button must still work then. Its message is left as it is when it lapses: the
        // custom_id's expiry refuses the buttons after it.
        const left = confirmation.expires * 1000 - ctx.now();
        if (asked !== undefined && left > 0 && (error instanceof RateLimitedError || error instanceof RateGateRefusalError)) {
          await pending.start(ctx, asked, feed, left, () => undefined);
        }
        throw error;
      }
      if (result.ok) ctx.services.audit.record(ctx.guildId(), { kind: 'feedDeleted', actor, feed }, interaction.locale);
      await ctx.respond.send({ embeds: [deletedEmbed(ctx.t, confirmation.id, result)], components: [] });
    },
  });

  return {
    subcommand,
    confirmButton,
    bulkConfirmButton: bulk.confirmButton,
    pickerPageButton: picker.pageButton,
    pickerSelect: picker.select,
    dispose() {
      pending.dispose();
      bulk.dispose();
    },
  };
}

/**
 * DELETE /feeds/{id}. When every attempt's answer was lost (a 5xx, a time-out, a cut connection:
 * the feed may be deleted), a fresh list says which: gone is deleted, still there is the failure,
 * and a list that cannot be read either tells the user to look before trying again.
 */
async function deleteOrLook(ctx: HandlerContext, id: number): Promise<DeleteFeedResponse> {
  try {
    return await ctx.call((api, auth) => api.deleteFeed(auth, id));
  } catch (error) {
    if (!mayHaveDoneWork(error)) throw error;
    const gone = await ctx.call((api, auth) => api.listFeeds(auth, { fresh: true })).then(
      (list) => !list.feeds.some((f) => f.id === id),
      () => undefined,
    );
    if (gone === undefined) throw new UnconfirmedWriteError('delete.unconfirmed', { id }, error);
    if (!gone) throw error;
    return { ok: true, mensaje: '' };
  }
}
