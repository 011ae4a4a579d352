/** /feedbot audit-channel: the answers to set, off and status. */
import { TimestampStyles, time, type APIEmbed } from 'discord.js';
import type { PostPermission } from '../../src/audit/post-permissions.js';
import type { KnownFailureReason } from '../../src/audit/post-failure.js';
import type { Translator } from '../../src/i18n/index.js';
import type { GuildSettings } from '../../src/settings/schema.js';
import { noticeEmbed } from '../../src/render/notice.js';
import { Colors, Limits } from '../../src/render/style.js';
import { truncate } from '../../src/render/text.js';

type AuditFailure = NonNullable<GuildSettings['auditFailure']>;

/** **View Channel**, **Embed Links**: what `set` found missing, by the names Discord's settings show. */
export function permissionList(t: Translator, missing: readonly PostPermission[]): string {
  return missing.map((p) => `**${t(`audit.perm.${p}`)}**`).join(t('audit.perm.separator'));
}

export function auditSetEmbed(t: Translator, channelId: string): APIEmbed {
  return { title: t('audit.title'), color: Colors.success, description: t('audit.set.done', { channel: channelId }) };
}

export function auditOffEmbed(t: Translator, channelId: string | undefined): APIEmbed {
  return noticeEmbed(channelId ? t('audit.off.done', { channel: channelId }) : t('audit.off.none'));
}

/** The channel, and the last failed post when it has not been reported yet. */
export function auditStatusEmbed(t: Translator, channelId: string | undefined, failure: AuditFailure | undefined): APIEmbed {
  if (!channelId) return noticeEmbed(t('audit.status.none'));
  const embed: APIEmbed = { title: t('audit.title'), color: failure ? Colors.warning : Colors.brand, description: t('audit.status.channel', { channel: channelId }) };
  if (!failure) return embed;
  const vars = { when: time(new Date(failure.at), TimestampStyles.RelativeTime), channel: failure.channelId, reason: failureText(t, failure.reason) };
  const value = failure.ref ? t('audit.status.failure.value', { ...vars, ref: failure.ref }) : t('audit.status.failure.valueNoRef', vars);
  return { ...embed, fields: [{ name: t('audit.status.failure'), value: truncate(value, Limits.fieldValue) }] };
}

const NO_ACCESS: readonly string[] = ['missing_access', 'missing_permissions'] satisfies KnownFailureReason[];

function failureText(t: Translator, reason: string): string {
  if (reason === 'unknown_channel') return t('audit.failure.unknown_channel');
  if (NO_ACCESS.includes(reason)) return t('audit.failure.noAccess');
  return t('audit.failure.other', { reason: reason.replace(/`/g, "'") });
}
