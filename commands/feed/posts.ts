/**
 * /feed posts <id> [limite] [tipo] — the latest posts a feed forwarded, in message-sized pages.
 */
import type { SlashCommandSubcommandBuilder } from 'discord.js';
import { CONTENT_KINDS, POSTS_LIMIT_DEFAULT, POSTS_LIMIT_MAX } from '@feedbot/feed-api-contract';
import { button, type SlashDeclaration } from '../../src/bot/command.js';
import type { HandlerContext } from '../../src/bot/context.js';
import { customId, int, oneOf, optional, snowflake, type Decoded } from '../../src/bot/custom-id.js';
import { knownKind } from '../../src/bot/options.js';
import { localize, localizedChoice } from '../../src/i18n/localize.js';
import { kindLabel } from '../../src/render/labels.js';
import { postsPage } from '../../src/render/posts.js';

export const postsPageId = customId('feed:posts', {
  id: int({ min: 1 }),
  limite: int({ min: 1, max: POSTS_LIMIT_MAX }),
  tipo: optional(oneOf(CONTENT_KINDS)),
  page: int({ min: 1 }),
  userId: snowflake,
});
type PostsState = Decoded<typeof postsPageId>;

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('posts'), { name: 'cmd.feed.posts.name', description: 'cmd.feed.posts.description' })
    .addIntegerOption((o) =>
      localize(o.setName('id'), { name: 'opt.id.name', description: 'opt.id.posts.description' }).setRequired(true).setMinValue(1).setAutocomplete(true),
    )
    .addIntegerOption((o) =>
      localize(o.setName('limite'), { name: 'opt.limite.name', description: 'opt.limite.description' }).setMinValue(1).setMaxValue(POSTS_LIMIT_MAX),
    )
    .addStringOption((o) =>
      localize(o.setName('tipo'), { name: 'opt.tipo.name', description: 'opt.tipo.description' }).addChoices(
        ...CONTENT_KINDS.map((k) => localizedChoice((t) => kindLabel(t, k), k)),
      ),
    );
}

async function showPosts(ctx: HandlerContext, state: PostsState) {
  const result = await ctx.call((api, auth) =>
    api.listPosts(auth, state.id, { limite: state.limite, ...(state.tipo ? { tipo: state.tipo } : {}) }),
  );
  await ctx.respond.send(
    postsPage(ctx.t, result.posts, {
      feedId: state.id,
      tipo: state.tipo,
      page: state.page,
      idFor: (page) => postsPageId.encode({ ...state, page }),
    }),
  );
}

export const subcommand: SlashDeclaration = {
  guildOnly: true,
  ephemeral: false,
  run: (interaction, ctx) =>
    showPosts(ctx, {
      id: interaction.options.getInteger('id', true),
      limite: interaction.options.getInteger('limite') ?? POSTS_LIMIT_DEFAULT,
      tipo: knownKind(interaction.options.getString('tipo')),
      page: 1,
      userId: interaction.user.id,
    }),
};

export const pageButton = button({
  id: postsPageId,
  guildOnly: true,
  invokerOnly: true,
  answer: 'update',
  ephemeral: true,
  run: (_interaction, ctx, state) => showPosts(ctx, state),
});
