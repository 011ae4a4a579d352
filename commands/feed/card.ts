/**
 * The feed card (card-view.ts) and the components that reach it or act from it: the list panel's
 * "Manage a feed…" select, the "Feed card" button under /feed posts, the message command's
 * choice between several feeds, and the card's own Posts and Delete buttons. Delete asks today's
 * /feed delete confirmation (same checks: Manage Server or a feed-manager role, asked and again
 * on Delete), answered by delete.ts's Delete/Cancel buttons.
 */
import type { AnySelectMenuInteraction, ButtonInteraction } from 'discord.js';
import type { FeedSummary } from '../../src/audit/events.js';
import { button, stringSelect, type ComponentRoute } from '../../src/interactions/command.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { customId, int } from '../../src/interactions/custom-id.js';
import { UserError } from '../../src/interactions/errors.js';
import { feedWarnings, healthView, warningText } from '../../src/health/feed-health.js';
import { confirmationExpiredEmbed, deleteConfirmation } from './render-delete.js';
import { feedCard } from './card-view.js';
import { PendingConfirmations, confirmationExpiry } from '../../src/interactions/confirmations.js';
import { feedSummary } from './confirmations.js';
import { deleteConfirmId } from './delete.js';
import { FeedSummarySchema } from './pending-values.js';
import { openCardId, showPosts } from './posts.js';
import { POSTS_LIMIT_DEFAULT, type FeedListItem, type Post } from '@feedbot/feed-api-contract';

/** "Manage a feed…" under /feed list: the options' values are feed ids. */
export const manageSelectId = customId('feed:manage', {});
/** The message command's choice when a post matched several feeds; values are feed ids. */
export const pickSelectId = customId('feed:pick', {});
const cardPostsId = customId('feed:card-posts', { id: int({ min: 1 }) });
const cardDeleteId = customId('feed:card-delete', { id: int({ min: 1 }) });

/** A select's chosen feed id, as the options wrote it. */
function chosenFeedId(interaction: AnySelectMenuInteraction): number {
  const read = int({ min: 1 }).read(interaction.values[0] ?? '');
  if (!read) throw new UserError('error.expiredComponent');
  return read.value;
}

/**
 * The card of feed `id`: the feed from the guild's list (the cache when it is fresh) and its
 * latest post (one GET /feeds/{id}/posts). A caller that already read them passes them in
 * (`known`), and nothing is asked again.
 */
export async function cardFor(ctx: HandlerContext, id: number, known?: { feed: FeedListItem; latest: Post | undefined }) {
  const feed = known?.feed ?? (await findFeed(ctx, id));
  const [view, latest] = await Promise.all([
    healthView(ctx.services, ctx.guildId(), [feed]),
    known ? known.latest : ctx.call((api, auth) => api.listPosts(auth, id, { limite: 1 })).then((p) => p.posts[0]),
  ]);
  return feedCard(ctx.t, {
    feed,
    warnings: feedWarnings(feed, view),
    staleAfterDays: view.staleAfterDays,
    latest,
    ids: { posts: cardPostsId.encode({ id }), delete: cardDeleteId.encode({ id }) },
  });
}

/**
 * Feed `id` from the guild's list: the cached list first; a feed created since (outside the bot,
 * within the cache's 30 s) is not in it, so a miss asks the API once more before saying it does
 * not exist.
 */
async function findFeed(ctx: HandlerContext, id: number): Promise<FeedListItem> {
  const cached = await ctx.call((api, auth) => api.listFeeds(auth));
  const feed = cached.feeds.find((f) => f.id === id) ?? (await ctx.call((api, auth) => api.listFeeds(auth, { fresh: true }))).feeds.find((f) => f.id === id);
  if (!feed) throw new UserError('error.notFound', { id });
  return feed;
}

interface CardFeature {
  buttons: ComponentRoute<ButtonInteraction>[];
  selects: ComponentRoute<AnySelectMenuInteraction>[];
  dispose(): void;
}

/** One per running bot: the Delete confirmations it asks (and their expiry timers) belong to it. */
export function createCardFeature(): CardFeature {
  // The same kind as /feed delete's: delete.ts's Delete button takes what this one stored.
  const pending = new PendingConfirmations<FeedSummary>('delete', FeedSummarySchema);

  // The card is private and only reads: anyone who sees the list may open one.
  const manageSelect = stringSelect({
    id: manageSelectId,
    guildOnly: true,
    answer: 'reply',
    ephemeral: true,
    run: async (interaction, ctx) => ctx.respond.send(await cardFor(ctx, chosenFeedId(interaction))),
  });

  const pickSelect = stringSelect({
    id: pickSelectId,
    guildOnly: true,
    answer: 'update',
    ephemeral: true,
    run: async (interaction, ctx) => ctx.respond.send({ content: '', ...(await cardFor(ctx, chosenFeedId(interaction))) }),
  });

  const openButton = button({
    id: openCardId,
    guildOnly: true,
    answer: 'reply',
    ephemeral: true,
    run: async (_interaction, ctx, { id }) => ctx.respond.send(await cardFor(ctx, id)),
  });

  const postsButton = button({
    id: cardPostsId,
    guildOnly: true,
    answer: 'reply',
    ephemeral: true,
    run: (interaction, ctx, { id }) => showPosts(ctx, { id, limite: POSTS_LIMIT_DEFAULT, tipo: undefined, page: 1, userId: interaction.user.id }),
  });

  const deleteButton = button({
    id: cardDeleteId,
    guildOnly: true,
    requires: { permission: 'ManageFeeds', action: 'deleteFeed' },
    answer: 'reply',
    ephemeral: true,
    async run(interaction, ctx, { id }) {
      const [feeds, view] = await Promise.all([ctx.call((api, auth) => api.listFeeds(auth)), healthView(ctx.services, ctx.guildId())]);
      const feed = feeds.feeds.find((f) => f.id === id);
      if (!feed) throw new UserError('error.notFound', { id });
      const { ttl, expires } = confirmationExpiry(ctx);
      const confirmation = { id, userId: interaction.user.id, expires: Math.ceil(expires.getTime() / 1000), asked: interaction.id };
      const t = ctx.t;
      await pending.start(ctx, interaction.id, feedSummary(feed), ttl, () => {
        void interaction
          .editReply({ embeds: [confirmationExpiredEmbed(t)], components: [] })
          .catch((error: unknown) => ctx.services.logger.debug({ err: error }, 'could not expire a delete confirmation'));
      });
      await ctx.respond.send(
        deleteConfirmation(
          t,
          feed,
          expires,
          { confirm: deleteConfirmId.encode({ answer: 'yes', ...confirmation }), cancel: deleteConfirmId.encode({ answer: 'no', ...confirmation }) },
          { marks: warningText(t, feedWarnings(feed, view), view.staleAfterDays), viaRoleId: ctx.actor().viaRoleId },
        ),
      );
    },
  });

  return {
    buttons: [openButton, postsButton, deleteButton],
    selects: [manageSelect, pickSelect],
    dispose: () => pending.dispose(),
  };
}
