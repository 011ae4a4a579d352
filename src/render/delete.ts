/** /feed delete: the confirmation with its two buttons, and what replaces it. */
import { ButtonStyle, ComponentType, TimestampStyles, time, type APIEmbed } from 'discord.js';
import type { DeleteFeedResponse, FeedListItem } from '@feedbot/feed-api-contract';
import type { Translator } from '../i18n/index.js';
import { quotedApiText } from './api-text.js';
import { noticeEmbed } from './notice.js';
import type { MessageRow } from './pager.js';
import { Colors } from './style.js';
import { plain } from './text.js';

/** The private question "Delete feed #1?", Delete/Cancel, and when it stops being valid. */
export function deleteConfirmation(
  t: Translator,
  feed: FeedListItem,
  expires: Date,
  ids: { confirm: string; cancel: string },
): { embeds: APIEmbed[]; components: MessageRow[] } {
  const id = feed.id;
  return {
    embeds: [
      {
        title: t('delete.confirm.title', { id }),
        color: Colors.warning,
        description: t('delete.confirm.description', {
          id,
          details: t('delete.confirm.details', { cuenta: plain(feed.cuenta), channel: feed.canal }),
          expires: time(expires, TimestampStyles.RelativeTime),
        }),
      },
    ],
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          { type: ComponentType.Button, custom_id: ids.confirm, label: t('delete.button.confirm'), style: ButtonStyle.Danger },
          { type: ComponentType.Button, custom_id: ids.cancel, label: t('delete.button.cancel'), style: ButtonStyle.Secondary },
        ],
      },
    ],
  };
}

/**
 * After Delete. The API's `mensaje` ("Feed 6 eliminado") only repeats the confirmation, in the
 * API's language: it is shown only when `ok` is false, as a quoted detail that may say why.
 */
export function deletedEmbed(t: Translator, id: number, result: DeleteFeedResponse): APIEmbed {
  if (result.ok) return { title: t('delete.done.title'), color: Colors.success, description: t('delete.done', { id }) };
  const detail = quotedApiText(t, result.mensaje);
  return noticeEmbed([t('delete.notConfirmed', { id }), detail].filter(Boolean).join('\n'), Colors.warning);
}

export function deleteCancelledEmbed(t: Translator, id: number): APIEmbed {
  return noticeEmbed(t('delete.cancelled', { id }));
}

export function confirmationExpiredEmbed(t: Translator): APIEmbed {
  return noticeEmbed(t('delete.expired'), Colors.warning);
}
