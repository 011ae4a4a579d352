/** Previous/Next buttons under a view that has several pages. */
import { ButtonStyle, ComponentType, type APIActionRowComponent, type APIComponentInMessageActionRow } from 'discord.js';
import type { Translator } from '../i18n/index.js';

export type MessageRow = APIActionRowComponent<APIComponentInMessageActionRow>;

/**
 * One row for pages 1…`pages` (none when there is a single page). `idFor` writes the custom_id
 * that shows a page; a disabled button points at the nearest page that exists, so every id sent
 * is one its codec reads back.
 */
export function pagerRows(t: Translator, page: number, pages: number, idFor: (page: number) => string): MessageRow[] {
  if (pages <= 1) return [];
  const button = (label: string, target: number, disabled: boolean) => ({
    type: ComponentType.Button as const,
    custom_id: idFor(target),
    label,
    style: ButtonStyle.Secondary as const,
    disabled,
  });
  return [
    {
      type: ComponentType.ActionRow,
      components: [
        button(t('button.previous'), Math.max(1, page - 1), page <= 1),
        button(t('button.next'), Math.min(pages, page + 1), page >= pages),
      ],
    },
  ];
}
