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

/**
 * Packs items into pages of at most `maxItems` items and `maxChars` characters (by `length`);
 * an item larger than the budget still gets a page of its own.
 */
export function packPages<T>(items: readonly T[], maxItems: number, maxChars: number, length: (item: T) => number): T[][] {
  const pages: T[][] = [];
  let page: T[] = [];
  let size = 0;
  for (const item of items) {
    const len = length(item);
    if (page.length > 0 && (page.length >= maxItems || size + len > maxChars)) {
      pages.push(page);
      page = [];
      size = 0;
    }
    page.push(item);
    size += len;
  }
  if (page.length > 0) pages.push(page);
  return pages;
}
