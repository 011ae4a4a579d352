/**
 * The feed card: one feed as a private embed (account linked to its profile, channel, state,
 * kinds, filter count, health marks, its latest post with the image) with Posts and Delete.
 * Pure: API data and health in, Discord JSON out.
 */
import { ButtonStyle, ComponentType, type APIEmbed, type APIEmbedField } from 'discord.js';
import type { FeedListItem, Post } from '@feedbot/feed-api-contract';
import { profileUrl } from '../../src/api/profile-url.js';
import { warningText, type FeedWarning } from '../../src/health/feed-health.js';
import type { Translator } from '../../src/i18n/index.js';
import { kindsLabel, singleKindLabel, stateLabel } from '../../src/render/labels.js';
import { apiCode, apiText } from '../../src/render/markdown.js';
import type { MessageRow } from '../../src/render/pager.js';
import { Colors, Limits } from '../../src/render/style.js';
import { safeHttpUrl, truncate, unixSeconds } from '../../src/render/text.js';

interface CardInput {
  feed: FeedListItem;
  warnings: readonly FeedWarning[];
  staleAfterDays: number;
  /** The feed's latest post (the last it forwarded to Discord: the API's newest first), if it forwarded any. */
  latest: Post | undefined;
  /** The custom_ids of the card's buttons. */
  ids: { posts: string; delete: string };
}

function channelMention(id: string): string {
  return /^\d{1,20}$/.test(id) ? `<#${id}>` : apiCode(id);
}

/**
 * "Latest post" means the last one forwarded to Discord everywhere (the list's `ultimoPost`, the
 * order of /feed posts): its forwarding time is shown, so the card and the list read the same.
 */
function latestPostValue(t: Translator, post: Post | undefined): string {
  if (!post) return t('card.latest.none');
  const line = t('card.latest.value', { kind: singleKindLabel(t, post.tipo), at: unixSeconds(post.publicadoDiscord) });
  const url = safeHttpUrl(post.postUrl);
  // A URL inside a masked link must not close it: parentheses and spaces are percent-encoded.
  return url ? `${line}\n${t('card.latest.link', { url: url.replace(/[()\s]/g, (c) => encodeURIComponent(c)) })}` : line;
}

export function feedCard(t: Translator, input: CardInput): { embeds: APIEmbed[]; components: MessageRow[] } {
  const { feed, latest } = input;
  const account = apiText(feed.cuenta, { max: 100 });
  const profile = profileUrl(feed.cuenta);
  const fields: APIEmbedField[] = [
    { name: t('card.field.account'), value: profile ? `[@${account}](${profile})` : `@${account}`, inline: true },
    { name: t('card.field.channel'), value: channelMention(feed.canal), inline: true },
    { name: t('card.field.state'), value: stateLabel(t, feed.estado), inline: true },
    { name: t('card.field.kinds'), value: kindsLabel(t, feed.tipos), inline: true },
    { name: t('card.field.filters'), value: String(feed.filtros), inline: true },
    { name: t('card.field.health'), value: warningText(t, input.warnings, input.staleAfterDays) ?? t('card.healthy'), inline: false },
    { name: t('card.field.latest'), value: truncate(latestPostValue(t, latest), Limits.fieldValue), inline: false },
  ];
  const embed: APIEmbed = {
    title: truncate(t('card.title', { id: feed.id, cuenta: account }), Limits.title),
    color: input.warnings.length > 0 ? Colors.warning : Colors.brand,
    fields,
  };
  if (profile) embed.url = profile;
  const media = latest ? safeHttpUrl(latest.mediaUrl) : undefined;
  if (media) embed.image = { url: media };
  return {
    embeds: [embed],
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          { type: ComponentType.Button, style: ButtonStyle.Secondary, label: t('card.button.posts'), custom_id: input.ids.posts },
          { type: ComponentType.Button, style: ButtonStyle.Danger, label: t('card.button.delete'), custom_id: input.ids.delete },
        ],
      },
    ],
  };
}
