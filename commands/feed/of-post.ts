/**
 * Message command "Feed of this post" (es: "Feed de esta publicación"): right-click a post the
 * service forwarded → Apps → the card of the feed that forwarded it. The feed is found from the
 * message's channel and the post links in the message (content, embeds' url/description/fields,
 * link buttons) against the latest posts of that channel's feeds: at most MAX_FEEDS_READ feeds'
 * posts are read (one GET /feeds/{id}/posts each), most recently active first. One match → its
 * card; several → a select to choose (card.ts's `feed:pick`); none → a private explanation.
 * Message commands carry the message, so no privileged intent is needed.
 */
import { ApplicationCommandType, ComponentType, ContextMenuCommandBuilder, InteractionContextType, type APIEmbed, type Message } from 'discord.js';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import type { ContextMenuModule } from '../../src/interactions/command.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { UserError } from '../../src/interactions/errors.js';
import { localizeContextMenu } from '../../src/i18n/localize.js';
import { plainLine } from '../../src/render/markdown.js';
import { noticeEmbed } from '../../src/render/notice.js';
import { cardFor, pickSelectId } from './card.js';

/** How many of the channel's feeds have their posts read: each read is one request of the key's 100 a minute. */
const MAX_FEEDS_READ = 5;
/** How many latest posts of each feed are compared (the API's default page). */
const POSTS_PER_FEED = 10;

const URL_IN_TEXT = /https?:\/\/[^\s<>()[\]"'`|]+/gi;

/**
 * A link as compared: host without `www.`, lowercase, path without its trailing slash, no query
 * or fragment (`?igsh=…` share ids differ between copies of one post).
 */
function postKey(link: string): string | undefined {
  try {
    const url = new URL(link);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return `${url.hostname.toLowerCase().replace(/^www\./, '')}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

function linksIn(text: string | null | undefined): string[] {
  return text ? [...text.matchAll(URL_IN_TEXT)].map((m) => m[0]) : [];
}

function embedLinks(embed: APIEmbed): string[] {
  return [embed.url ?? '', ...linksIn(embed.description), ...(embed.fields ?? []).flatMap((f) => linksIn(f.value))].filter(Boolean);
}

/** Every link button's URL, in rows or nested containers. */
function buttonLinks(components: readonly unknown[]): string[] {
  return components.flatMap((c) => {
    const raw = c as { type?: number; url?: string; components?: unknown[]; accessory?: unknown };
    const own = raw.type === ComponentType.Button && typeof raw.url === 'string' ? [raw.url] : [];
    return [...own, ...buttonLinks(raw.components ?? []), ...(raw.accessory ? buttonLinks([raw.accessory]) : [])];
  });
}

/** The post links a forwarded message holds, as compared (postKey). */
function postKeysOf(message: Pick<Message, 'content' | 'embeds' | 'components'>): Set<string> {
  const links = [
    ...linksIn(message.content),
    ...message.embeds.flatMap((e) => embedLinks(e.toJSON())),
    ...buttonLinks(message.components.map((c) => c.toJSON())),
  ];
  return new Set(links.map(postKey).filter((k) => k !== undefined));
}

/** Most recently active first: a right-clicked post is most likely recent. */
function byLatestPost(a: FeedListItem, b: FeedListItem): number {
  return (b.ultimoPost ? Date.parse(b.ultimoPost) || 0 : 0) - (a.ultimoPost ? Date.parse(a.ultimoPost) || 0 : 0);
}

async function run(message: Message, ctx: HandlerContext): Promise<void> {
  const channel = message.channelId;
  const keys = postKeysOf(message);
  if (keys.size === 0) throw new UserError('feedOfPost.noLink');
  const list = await ctx.call((api, auth) => api.listFeeds(auth));
  const here = list.feeds.filter((f) => f.canal === channel).sort(byLatestPost);
  if (here.length === 0) throw new UserError('feedOfPost.noFeeds', { channel });
  const read = here.slice(0, MAX_FEEDS_READ);
  const posts = await Promise.all(read.map((feed) => ctx.call((api, auth) => api.listPosts(auth, feed.id, { limite: POSTS_PER_FEED }))));
  const matches = read.filter((_feed, i) => posts[i]!.posts.some((p) => keys.has(postKey(p.postUrl) ?? '')));
  if (matches.length === 0) {
    if (here.length > read.length) throw new UserError('feedOfPost.noneBounded', { read: read.length, count: here.length, channel });
    throw new UserError('feedOfPost.none', { count: here.length, channel });
  }
  if (matches.length === 1) {
    // Its posts were just read: the card needs no second request.
    const i = read.indexOf(matches[0]!);
    await ctx.respond.send(await cardFor(ctx, matches[0]!.id, { feed: matches[0]!, latest: posts[i]!.posts[0] }));
    return;
  }
  await ctx.respond.send({
    embeds: [noticeEmbed(ctx.t('feedOfPost.several', { count: matches.length, channel }))],
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.StringSelect,
            custom_id: pickSelectId.encode({}),
            placeholder: ctx.t('feedOfPost.pick.placeholder'),
            options: matches.map((f) => ({ label: plainLine(`#${f.id} · @${f.cuenta}`, 100), value: String(f.id) })),
          },
        ],
      },
    ],
  });
}

export const feedOfPostCommand: ContextMenuModule = {
  data: localizeContextMenu(
    new ContextMenuCommandBuilder().setType(ApplicationCommandType.Message).setContexts(InteractionContextType.Guild),
    'cmd.feedOfPost.name',
  ),
  contextMenu: {
    type: 'message',
    guildOnly: true,
    ephemeral: true,
    run: (interaction, ctx) => run(interaction.targetMessage, ctx),
  },
};
