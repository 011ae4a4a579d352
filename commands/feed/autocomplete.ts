/**
 * Feed id suggestions for /feed delete and /feed posts, matched on id, account or channel name.
 */
import type { AutocompleteInteraction } from 'discord.js';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import type { HandlerContext } from '../../src/interactions/context.js';
import { AUTOCOMPLETE_BUDGET_MS } from '../../src/interactions/router.js';
import { stateChoices } from '../../src/health/state-autocomplete.js';
import { feedChoiceName } from './render-feeds.js';
import { Limits } from '../../src/render/style.js';
import { within } from '../../src/within.js';

function matches(feed: FeedListItem, query: string, channelName: string | undefined): boolean {
  if (!query) return true;
  const q = query.toLowerCase().replace(/^[#@]/, '');
  return (
    String(feed.id).startsWith(q) ||
    feed.cuenta.toLowerCase().includes(q) ||
    (channelName?.toLowerCase().includes(q) ?? false)
  );
}

/** `/feed list estado`: feed states, from the cached list only (never a request). */
async function stateAutocomplete(interaction: AutocompleteInteraction, ctx: HandlerContext): Promise<void> {
  const cached = interaction.guildId ? await ctx.services.api.cachedFeeds(interaction.guildId) : undefined;
  const query = String(interaction.options.getFocused() ?? '');
  await interaction.respond(stateChoices(ctx.t, cached?.feeds.map((f) => f.estado) ?? [], query));
}

/**
 * Choices come from the per-guild cache. On a miss the list is fetched, but the answer waits at
 * most until the autocomplete budget runs out; the fetch still fills the cache for the next key.
 */
export async function autocomplete(interaction: AutocompleteInteraction, ctx: HandlerContext): Promise<void> {
  // /feed list estado: feed states, not feed ids.
  if (interaction.options.getFocused(true).name === 'estado') return stateAutocomplete(interaction, ctx);
  const started = ctx.now();
  const guildId = interaction.guildId;
  if (!guildId) return interaction.respond([]);
  let feeds = await ctx.services.api.cachedFeeds(guildId);
  if (!feeds) {
    const stored = await ctx.services.keys.get(guildId);
    if (!stored) return interaction.respond([]);
    const budget = Math.max(0, AUTOCOMPLETE_BUDGET_MS - (ctx.now() - started));
    const fetched = ctx.services.api.listFeeds({ apiKey: stored.apiKey, guildId }).catch((error: unknown) => {
      ctx.services.logger.debug({ err: error, guild: guildId }, 'autocomplete could not load the feed list');
      return undefined;
    });
    feeds = await within(fetched, budget);
  }
  const query = String(interaction.options.getFocused() ?? '').trim();
  // Over the gateway from the cache at once; in HTTP mode fetched, within what is left of the budget.
  const channels = await ctx.services.channels.names(guildId, Math.max(0, AUTOCOMPLETE_BUDGET_MS - (ctx.now() - started)));
  const choices = (feeds?.feeds ?? [])
    .filter((f) => matches(f, query, channels?.get(f.canal)))
    .slice(0, Limits.choices)
    .map((f) => ({ name: feedChoiceName(ctx.t, f, channels?.get(f.canal)), value: f.id }));
  await interaction.respond(choices);
}
