/**
 * The health sweeps' audit posts (a change found without any command) and the weekly digest
 * (src/health/sweep/), plus the `/feedbot digest` and audit-channel status lines. Values from the
 * API go through apiText() so they cannot ping, link or break the layout.
 */
import type { APIEmbed, APIEmbedField } from 'discord.js';
import type { AuditEvent, DigestSummary, FeedSummary } from './events.js';
import type { Translator } from '../i18n/index.js';
import { apiText } from '../render/markdown.js';
import { stateLabel } from '../render/labels.js';
import { Colors, Limits } from '../render/style.js';
import { truncate } from '../render/text.js';

type SweepEvent = Extract<AuditEvent, { kind: 'keyScopeMissing' | 'feedInactive' | 'feedActiveAgain' | 'feedQuiet' | 'feedPostsAgain' | 'weeklyDigest' }>;

export function sweepEventEmbed(t: Translator, event: SweepEvent): APIEmbed {
  switch (event.kind) {
    case 'keyScopeMissing':
      return { title: t('sweep.scopeMissing.title'), color: Colors.danger, description: t('sweep.scopeMissing.description', { scope: `\`${event.scope}\``, masked: `\`${event.masked}\`` }) };
    case 'feedInactive':
      return feedEmbed(t, event.feed, Colors.warning, 'sweep.feedInactive.title', t('sweep.feedInactive.description', { estado: stateLabel(t, event.estado) }));
    case 'feedActiveAgain':
      return feedEmbed(t, event.feed, Colors.success, 'sweep.feedActive.title', t('sweep.feedActive.description'));
    case 'feedQuiet':
      return feedEmbed(t, event.feed, Colors.warning, 'sweep.feedQuiet.title', t('sweep.feedQuiet.description', { days: event.days }));
    case 'feedPostsAgain':
      return feedEmbed(t, event.feed, Colors.success, 'sweep.feedPosting.title', t('sweep.feedPosting.description'));
    case 'weeklyDigest':
      return digestEmbed(t, event.digest);
  }
}

function label(t: Translator, feed: FeedSummary): string {
  return feed.cuenta ? t('audit.feed.label', { id: feed.id, cuenta: apiText(feed.cuenta, { max: 100 }) }) : `\`#${feed.id}\``;
}

function feedEmbed(t: Translator, feed: FeedSummary, color: number, title: 'sweep.feedInactive.title' | 'sweep.feedActive.title' | 'sweep.feedQuiet.title' | 'sweep.feedPosting.title', description: string): APIEmbed {
  const fields: APIEmbedField[] = [{ name: t('audit.field.feed'), value: truncate(label(t, feed), 200), inline: true }];
  if (feed.canalId && /^\d{1,20}$/.test(feed.canalId)) fields.push({ name: t('audit.field.forwardsTo'), value: `<#${feed.canalId}>`, inline: true });
  return { title: truncate(t(title, { id: feed.id }), Limits.title), color, description, fields, footer: { text: t('sweep.footer') } };
}

/** The weekly digest: one embed, the same privately (`/feedbot digest preview`) and in the audit channel. */
export function digestEmbed(t: Translator, d: DigestSummary): APIEmbed {
  const warned = d.warned.map((w) => `${label(t, w.feed)} — ${w.warnings.join(' · ')}`);
  const more = d.warnedTotal - d.warned.length;
  const fields: APIEmbedField[] = [
    { name: t('digest.field.posts'), value: String(d.postsThisWeek), inline: true },
    { name: t('digest.field.mostActive'), value: d.mostActive ? `@${apiText(d.mostActive.replace(/^@/, ''), { max: 100 })}` : t('digest.none'), inline: true },
    { name: t('digest.field.feeds'), value: t('digest.feeds.value', { active: d.active, paused: d.paused }), inline: true },
    { name: t('digest.field.changes'), value: t('digest.changes.value', { created: d.created, deleted: d.deleted }), inline: true },
    {
      name: t('digest.field.warned', { count: d.warnedTotal }),
      value: truncate(d.warnedTotal === 0 ? t('digest.warned.none') : [...warned, ...(more > 0 ? [t('digest.warned.more', { count: more })] : [])].join('\n'), Limits.fieldValue),
    },
  ];
  return { title: t('digest.title'), color: Colors.brand, fields };
}
