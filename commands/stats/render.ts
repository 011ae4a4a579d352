/** The /stats embed. */
import type { APIEmbed, APIEmbedField } from 'discord.js';
import type { Stats } from '@feedbot/feed-api-contract';
import type { MessageKey, Translator } from '../../src/i18n/index.js';
import { knownPlanName } from '../../src/i18n/plans.js';
import { Colors, Limits } from '../../src/render/style.js';
import { apiCode, apiText } from '../../src/render/markdown.js';
import { dateTimeAndAgo, truncate } from '../../src/render/text.js';

/** `guild`: the server's name when Discord told us (the gateway's cache), shown instead of its id. */
export function statsEmbed(t: Translator, stats: Stats, guild: { id: string; name?: string | undefined } | undefined = undefined): APIEmbed {
  const none = t('stats.none');
  const activity = stats.ultimaActividad && !Number.isNaN(Date.parse(stats.ultimaActividad))
    ? dateTimeAndAgo(stats.ultimaActividad)
    : none;
  const field = (key: MessageKey, value: string, inline = true): APIEmbedField => ({
    name: t(key),
    value: truncate(value, Limits.fieldValue),
    inline,
  });
  return {
    title: t('stats.title'),
    color: Colors.brand,
    fields: [
      field('stats.field.servidor', guild?.name && guild.id === stats.servidor ? apiText(guild.name, { max: 100 }) : apiCode(stats.servidor, 100)),
      field('stats.field.plan', knownPlanName(t, stats.plan) ?? apiText(stats.plan, { max: 100 })),
      field('stats.field.feedsActivos', String(stats.feedsActivos)),
      field('stats.field.feedsPausados', String(stats.feedsPausados)),
      field('stats.field.postsHoy', String(stats.postsHoy)),
      field('stats.field.postsEstaSemana', String(stats.postsEstaSemana)),
      field('stats.field.cuentaMasActiva', stats.cuentaMasActiva ? `@${apiText(stats.cuentaMasActiva, { max: 100 })}` : none),
      field('stats.field.ultimaActividad', activity, false),
    ],
  };
}
