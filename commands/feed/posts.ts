/**
 * /feed posts <id> [limite] [tipo] — the latest posts a feed forwarded, in message-sized pages.
 */
import { ButtonStyle, ComponentType, type SlashCommandSubcommandBuilder } from 'discord.js';
import { CONTENT_KINDS, POSTS_LIMIT_DEFAULT } from '@feedbot/feed-api-contract';
import { button, type SlashDeclaration } from '../../src/interactions/command.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { customId, int, oneOf, optional, snowflake, type Decoded } from '../../src/interactions/custom-id.js';
import { knownKind } from '../../src/interactions/options.js';
import { localize, localizedChoice } from '../../src/i18n/localize.js';
import { kindLabel } from '../../src/render/labels.js';
import { postsPage } from './render-posts.js';
import { boundedOption, integerOption } from '../../src/interactions/integer-options.js';
import { FEED_ID, POSTS_LIMIT, feedIdOption } from './integer-options.js';

export const postsPageId = customId('feed:posts', {
  id: int({ min: 1 }),
  limite: int({ min: POSTS_LIMIT.min, max: POSTS_LIMIT.max }),
  tipo: optional(oneOf(CONTENT_KINDS)),
  page: int({ min: 1 }),
  userId: snowflake,
});
type PostsState = Decoded<typeof postsPageId>;

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('posts'), { name: 'cmd.feed.posts.name', description: 'cmd.feed.posts.description' })
    .addIntegerOption((o) =>
      localize(boundedOption(o, FEED_ID), { name: 'opt.id.name', description: 'opt.id.posts.description' }).setRequired(true).setAutocomplete(true),
    )
    .addIntegerOption((o) => localize(boundedOption(o, POSTS_LIMIT), { name: 'opt.limite.name', description: 'opt.limite.description' }))
    .addStringOption((o) =>
      localize(o.setName('tipo'), { name: 'opt.tipo.name', description: 'opt.tipo.description' }).addChoices(
        ...CONTENT_KINDS.map((k) => localizedChoice((t) => kindLabel(t, k), k)),
      ),
    );
}

/** The "Feed card" button under the posts: the card of the feed they belong to (card.ts). */
export const openCardId = customId('feed:card', { id: int({ min: 1 }) });

/** One page of a feed's posts, with Previous/Next and a button to the feed's card. Also the card's Posts button. */
export async function showPosts(ctx: HandlerContext, state: PostsState): Promise<void> {
  const result = await ctx.call((api, auth) =>
    api.listPosts(auth, state.id, { limite: state.limite, ...(state.tipo ? { tipo: state.tipo } : {}) }),
  );
  const page = postsPage(ctx.t, result.posts, {
    feedId: state.id,
    tipo: state.tipo,
    page: state.page,
    idFor: (page) => postsPageId.encode({ ...state, page }),
  });
  const card = { type: ComponentType.Button as const, style: ButtonStyle.Secondary as const, label: ctx.t('card.button.open'), custom_id: openCardId.encode({ id: state.id }) };
  const [pager] = page.components;
  // Beside Previous/Next when there are pages, else a row of its own.
  const components = pager ? [{ ...pager, components: [...pager.components, card] }] : [{ type: ComponentType.ActionRow as const, components: [card] }];
  await ctx.respond.send({ ...page, components });
}

export const subcommand: SlashDeclaration = {
  guildOnly: true,
  ephemeral: false,
  async run(interaction, ctx) {
    await showPosts(ctx, {
      id: feedIdOption(interaction),
      limite: integerOption(interaction, ctx.t, POSTS_LIMIT) ?? POSTS_LIMIT_DEFAULT,
      tipo: knownKind(interaction.options.getString('tipo')),
      page: 1,
      userId: interaction.user.id,
    });
  },
};

export const pageButton = button({
  id: postsPageId,
  guildOnly: true,
  invokerOnly: true,
  answer: 'update',
  ephemeral: true,
  run: (_interaction, ctx, state) => showPosts(ctx, state),
});
