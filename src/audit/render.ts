/**
 * The audit channel's posts: one embed per event kind (src/audit/events.ts), in the language the
 * trail chose. Who acted is a user mention (the post is sent without pings), and every value that
 * came from the API goes through apiText()/apiCode() (src/render/markdown.ts) so it cannot ping, link or break the layout.
 */
import type { APIEmbed, APIEmbedField } from 'discord.js';
import type { Actor, AuditEvent, FeedSummary } from './events.js';
import type { Translator } from '../i18n/index.js';
import { kindsLabel } from '../render/labels.js';
import { Colors, Limits } from '../render/style.js';
import { apiCode, apiText } from '../render/markdown.js';
import { truncate } from '../render/text.js';
import { sweepEventEmbed } from './render-sweep.js';

/** Feeds listed by name in a channel-deleted post; the rest are counted. */
const MAX_LISTED_FEEDS = 25;

export function auditEmbed(t: Translator, event: AuditEvent, at: Date): APIEmbed {
  return { ...eventEmbed(t, event), timestamp: at.toISOString() };
}

function eventEmbed(t: Translator, event: AuditEvent): APIEmbed {
  switch (event.kind) {
    case 'feedCreated':
      return feedEmbed(t, event.feed, event.actor, { title: t('audit.feedCreated.title', { id: event.feed.id }), color: Colors.success, where: 'audit.field.forwardsTo' });
    case 'feedDeleted':
      return feedEmbed(t, event.feed, event.actor, { title: t('audit.feedDeleted.title', { id: event.feed.id }), color: Colors.danger, where: 'audit.field.forwardedTo' });
    case 'keySet':
      return {
        title: t(event.replaced ? 'audit.keyReplaced.title' : 'audit.keySet.title'),
        color: Colors.brand,
        ...(event.replaced ? { description: t('audit.keyReplaced.description') } : {}),
        fields: [keyField(t, event.masked), byField(t, event.actor)],
      };
    case 'keyRemoved':
      return {
        title: t('audit.keyRemoved.title'),
        color: Colors.warning,
        description: t('audit.keyRemoved.description'),
        fields: [...(event.masked ? [keyField(t, event.masked)] : []), byField(t, event.actor)],
      };
    case 'keyStoppedWorking':
      return { title: t('audit.keyStopped.title'), color: Colors.danger, description: t('audit.keyStopped.description', { masked: code(event.masked) }) };
    case 'channelDeleted':
      return channelDeletedEmbed(t, event.channelId, event.channelName, event.feeds);
    case 'guildForgotten':
      return { title: t('forget.audit.title'), color: Colors.danger, description: t('forget.audit.description'), fields: [byField(t, event.actor)] };
    // Found by the health sweeps and the weekly digest: rendered in render-sweep.ts.
    case 'keyScopeMissing':
    case 'feedInactive':
    case 'feedActiveAgain':
    case 'feedQuiet':
    case 'feedPostsAgain':
    case 'weeklyDigest':
      return sweepEventEmbed(t, event);
  }
}

function feedEmbed(t: Translator, feed: FeedSummary, actor: Actor, how: { title: string; color: number; where: 'audit.field.forwardsTo' | 'audit.field.forwardedTo' }): APIEmbed {
  const fields: APIEmbedField[] = [byField(t, actor), { name: t('audit.field.feed'), value: feedLabel(t, feed), inline: true }];
  if (feed.canalId) fields.push({ name: t(how.where), value: channelMention(feed.canalId), inline: true });
  if (feed.tipos?.length) fields.push({ name: t('audit.field.kinds'), value: kindsLabel(t, feed.tipos), inline: true });
  return { title: truncate(how.title, Limits.title), color: how.color, fields };
}

function byField(t: Translator, actor: Actor): APIEmbedField {
  const value = actor.viaRoleId ? t('audit.field.byRole', { user: actor.userId, role: actor.viaRoleId }) : `<@${actor.userId}>`;
  // The role's sentence needs the embed's width.
  return { name: t('audit.field.by'), value, inline: !actor.viaRoleId };
}

function keyField(t: Translator, masked: string): APIEmbedField {
  return { name: t('audit.field.key'), value: code(masked), inline: true };
}

/** `#12` @nasa, or `#12` alone when the account is not known. */
function feedLabel(t: Translator, feed: FeedSummary): string {
  if (!feed.cuenta) return `\`#${feed.id}\``;
  return truncate(t('audit.feed.label', { id: feed.id, cuenta: apiText(feed.cuenta, { max: 100 }) }), 200);
}

function channelMention(id: string): string {
  return /^\d{1,20}$/.test(id) ? `<#${id}>` : apiCode(id);
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

/** `/feed delete id:12`, with the names the reader's Discord shows. */
function deleteCommand(t: Translator, option: string): string {
  return `\`/feed ${t('cmd.feed.delete.name')} ${option}\``;
}

/**
 * A deleted channel: its name (a mention of a deleted channel shows nothing useful), the feeds
 * that pointed to it with the command that deletes each, and the one that deletes them all.
 */
function channelDeletedEmbed(t: Translator, channelId: string, channelName: string | undefined, feeds: readonly FeedSummary[]): APIEmbed {
  const channel = channelName ? `#${apiText(channelName, { max: 100 })}` : channelId;
  const listed = feeds.slice(0, MAX_LISTED_FEEDS).map((feed) => `${feedLabel(t, feed)} — ${deleteCommand(t, `${t('opt.id.name')}:${feed.id}`)}`);
  const rest = feeds.length - listed.length;
  const lines = feeds.length
    ? [
        t('audit.channelDeleted.description', { count: feeds.length }),
        ...listed,
        ...(rest > 0 ? [t('audit.channelDeleted.more', { count: rest })] : []),
        '',
        t('audit.channelDeleted.all', { command: deleteCommand(t, `${t('opt.problemas.name')}:${t('audit.option.true')}`) }),
      ]
    : [t('audit.channelDeleted.none')];
  return {
    title: truncate(t('audit.channelDeleted.title', { channel }), Limits.title),
    color: Colors.warning,
    description: truncate(lines.join('\n'), Limits.description),
  };
}
