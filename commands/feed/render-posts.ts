/**
 * /feed posts: one embed per post, packed into message-sized pages with a header line. "Latest"
 * means last forwarded to Discord, as in the list and the card: the posts are shown newest
 * forwarded first, and each embed's timestamp is its forwarding time; the time the account
 * published it is the second, labelled field.
 */
import type { APIEmbed } from 'discord.js';
import type { Post } from '@feedbot/feed-api-contract';
import type { Translator } from '../../src/i18n/index.js';
import { kindLabel, singleKindLabel } from '../../src/render/labels.js';
import { noticeEmbed } from '../../src/render/notice.js';
import { packPages, pagerRows, type MessageRow } from '../../src/render/pager.js';
import { Colors, Limits } from '../../src/render/style.js';
import { apiText } from '../../src/render/markdown.js';
import { dateTime, dateTimeAndAgo, embedLength, safeHttpUrl, truncate } from '../../src/render/text.js';

/** Caption room per post: ten posts with their fields stay under the 6000-character limit. */
const CAPTION_MAX = 400;

function postEmbed(t: Translator, post: Post): APIEmbed {
  const caption = post.caption.trim() ? apiText(post.caption, { max: CAPTION_MAX, multiline: true }) : t('posts.noCaption');
  const embed: APIEmbed = {
    title: truncate(`${singleKindLabel(t, post.tipo)} · ${apiText(post.id, { max: 100 })}`, Limits.title),
    description: caption,
    color: Colors.brand,
    fields: [
      {
        name: t('posts.field.forwarded'),
        value: dateTimeAndAgo(post.publicadoDiscord),
        inline: true,
      },
      { name: t('posts.field.published'), value: dateTime(post.publicadoEn), inline: true },
    ],
    timestamp: new Date(post.publicadoDiscord).toISOString(),
  };
  const url = safeHttpUrl(post.postUrl);
  if (url) embed.url = url;
  const media = safeHttpUrl(post.mediaUrl);
  if (media) embed.image = { url: media };
  return embed;
}

/**
 * Packs post embeds into messages: at most 10 embeds and 6000 characters each (the header line
 * travels as message content, which has its own 2000 limit).
 */
function paginatePosts(embeds: APIEmbed[]): APIEmbed[][] {
  return packPages(embeds, Limits.embedsPerMessage, Limits.charsPerMessage, embedLength);
}

/**
 * Newest forwarded first, whatever order the API sent (the spec says only "latest"): the order
 * then agrees with the time each embed shows. Equal times keep the API's order.
 */
function byLastForwarded(posts: readonly Post[]): Post[] {
  return posts
    .map((post, i) => ({ post, i, at: Date.parse(post.publicadoDiscord) || 0 }))
    .sort((a, b) => b.at - a.at || a.i - b.i)
    .map((p) => p.post);
}


interface PostsPageRequest {
  feedId: number;
  /** The kind filter the posts were asked with, if any. */
  tipo: string | undefined;
  /** 1-based; clamped to the pages there are. */
  page: number;
  /** The custom_id that shows another page. */
  idFor: (page: number) => string;
}

/** One page of a feed's posts as a whole message (or a notice when there are none). */
export function postsPage(t: Translator, posts: readonly Post[], req: PostsPageRequest): { content: string; embeds: APIEmbed[]; components: MessageRow[] } {
  if (posts.length === 0) {
    const message = req.tipo
      ? t('posts.empty.kind', { id: req.feedId, kind: kindLabel(t, req.tipo) })
      : t('posts.empty', { id: req.feedId });
    return { content: '', embeds: [noticeEmbed(message)], components: [] };
  }
  const pages = paginatePosts(byLastForwarded(posts).map((p) => postEmbed(t, p)));
  const page = Math.min(Math.max(1, req.page), pages.length);
  const before = pages.slice(0, page - 1).reduce((n, p) => n + p.length, 0);
  const embeds = pages[page - 1] ?? [];
  return {
    content: truncate(t('posts.header', { id: req.feedId, from: before + 1, to: before + embeds.length, total: posts.length }), Limits.content),
    embeds,
    components: pagerRows(t, page, pages.length, req.idFor),
  };
}
