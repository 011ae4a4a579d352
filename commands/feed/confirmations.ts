/**
 * What the feed commands' confirmations share beyond the interaction layer's
 * (src/interactions/confirmations.ts): the feed a question is about, and the "expired" a question becomes
 * in the process that asked, the timer that takes its buttons away (components never do).
 */
import type { FeedListItem } from '@feedbot/feed-api-contract';
import type { FeedSummary } from '../../src/audit/events.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import type { RepliableInteraction } from '../../src/interactions/responder.js';
import { confirmationExpiredEmbed } from './render-delete.js';

/** What a confirmation remembers of a feed it asked about: what its audit post will say. */
export function feedSummary(feed: FeedListItem): FeedSummary {
  return { id: feed.id, cuenta: feed.cuenta, canalId: feed.canal, tipos: feed.tipos };
}

/**
 * What an expired confirmation becomes: "expired", its buttons taken away. `interaction` asked it:
 * a slash command's reply, or a picker's select whose message the confirmation replaced.
 */
export function expireConfirmation(interaction: Pick<RepliableInteraction, 'editReply'>, ctx: HandlerContext): () => void {
  const t = ctx.t;
  return () => {
    void interaction
      .editReply({ embeds: [confirmationExpiredEmbed(t)], components: [] })
      .catch((error: unknown) => ctx.services.logger.debug({ err: error }, 'could not expire a delete confirmation'));
  };
}
