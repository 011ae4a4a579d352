/**
 * The parts of a bot message below its text, as the renderer's components: <discord-embed>
 * (colour, title and link, description, inline fields, image, thumbnail, footer and timestamp)
 * and action rows of <discord-button> or of one select menu (selects.js).
 */
import { messageTime } from './dates.js';
import { el } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { SELECT_TYPES, renderSelect } from './selects.js';

const BUTTON_TYPES = { 1: 'primary', 2: 'secondary', 3: 'success', 4: 'destructive', 5: 'secondary' };

const hex = (color) => `#${Number(color).toString(16).padStart(6, '0')}`;

export function renderEmbed(embed, ctx) {
  const md = { ...ctx, inEmbed: true };
  const node = el('discord-embed', {
    slot: 'embeds',
    color: typeof embed.color === 'number' ? hex(embed.color) : undefined,
    'embed-title': embed.title,
    url: embed.url ? ctx.link(embed.url) : undefined,
    image: embed.image?.url ? ctx.link(embed.image.url) : undefined,
    thumbnail: embed.thumbnail?.url ? ctx.link(embed.thumbnail.url) : undefined,
    'author-name': embed.author?.name,
    'author-image': embed.author?.icon_url ? ctx.link(embed.author.icon_url) : undefined,
    'author-url': embed.author?.url ? ctx.link(embed.author.url) : undefined,
  });
  if (embed.description) node.append(el('discord-embed-description', { slot: 'description' }, [renderMarkdown(embed.description, md)]));
  if (embed.fields?.length) {
    const fields = el('discord-embed-fields', { slot: 'fields' });
    // Discord puts up to three consecutive inline fields on one row.
    let run = 0;
    for (const field of embed.fields) {
      run = field.inline ? run + 1 : 0;
      fields.append(
        el(
          'discord-embed-field',
          { 'field-title': field.name, inline: Boolean(field.inline), 'inline-index': field.inline ? ((run - 1) % 3) + 1 : undefined },
          [renderMarkdown(field.value, md)],
        ),
      );
    }
    node.append(fields);
  }
  const footerText = embed.footer?.text ?? '';
  const stamp = embed.timestamp ? messageTime(embed.timestamp, ctx.lang) : '';
  if (footerText || stamp) {
    const text = [footerText, stamp].filter(Boolean).join(' • ');
    node.append(el('discord-embed-footer', { slot: 'footer', 'footer-image': embed.footer?.icon_url ? ctx.link(embed.footer.icon_url) : undefined }, [text]));
  }
  return node;
}

export function renderComponents(message, ctx) {
  const rows = (message.components ?? []).filter((row) => row.type === 1 && row.components?.length);
  if (!rows.length) return null;
  const holder = el('discord-attachments', { slot: 'components' });
  for (const row of rows) {
    const actionRow = el('discord-action-row');
    for (const c of row.components) {
      if (SELECT_TYPES.has(c.type)) {
        // A select fills its row on its own.
        const select = renderSelect(c, { lang: ctx.lang, info: ctx.info, onCommit: (values, label) => ctx.onSelect(message, c.custom_id, values, select.node, label) });
        actionRow.append(select.node);
        continue;
      }
      if (c.type !== 2) continue;
      const button = el(
        'discord-button',
        {
          type: BUTTON_TYPES[c.style] ?? 'secondary',
          disabled: Boolean(c.disabled),
          url: c.style === 5 && c.url ? ctx.link(c.url) : undefined,
          'data-custom-id': c.custom_id,
        },
        [c.label ?? c.emoji?.name ?? ''],
      );
      if (c.custom_id && !c.disabled && c.style !== 5) {
        button.addEventListener('click', () => ctx.onButton(message, c.custom_id, button));
      }
      actionRow.append(button);
    }
    if (actionRow.children.length) holder.append(actionRow);
  }
  return holder.children.length ? holder : null;
}
