/* global document */
/**
 * Discord API messages (what the bot sent the emulator) → the renderer's web components:
 * <discord-message> with content, <discord-embed> (colour, title and link, description, inline
 * fields, image, thumbnail, footer and timestamp), action rows of <discord-button>, and the
 * ephemeral marking. Nothing here imitates Discord's CSS; the components do the drawing.
 */
import { messageTime, tr } from './i18n.js';
import { renderMarkdown } from './markdown.js';

export const FLAG_EPHEMERAL = 1 << 6;
export const FLAG_LOADING = 1 << 7;

const BUTTON_TYPES = { 1: 'primary', 2: 'secondary', 3: 'success', 4: 'destructive', 5: 'secondary' };

export function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === true) node.setAttribute(k, '');
    else if (v !== false && v !== undefined && v !== null && v !== '') node.setAttribute(k, String(v));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

const hex = (color) => `#${Number(color).toString(16).padStart(6, '0')}`;

function renderEmbed(embed, ctx) {
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
  const stamp = embed.timestamp ? messageTime(new Date(embed.timestamp), ctx.lang) : '';
  if (footerText || stamp) {
    const text = [footerText, stamp].filter(Boolean).join(' • ');
    node.append(el('discord-embed-footer', { slot: 'footer', 'footer-image': embed.footer?.icon_url ? ctx.link(embed.footer.icon_url) : undefined }, [text]));
  }
  return node;
}

function renderComponents(message, ctx) {
  const rows = (message.components ?? []).filter((row) => row.type === 1 && row.components?.length);
  if (!rows.length) return null;
  const holder = el('discord-attachments', { slot: 'components' });
  for (const row of rows) {
    const actionRow = el('discord-action-row');
    for (const c of row.components) {
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

/**
 * One bot (or user) message. `opts.header` adds the "<user> used /command" line above it;
 * `opts.thinking` draws the deferred state instead of the (empty) content.
 */
export function renderMessage(message, ctx, opts = {}) {
  const isBot = message.author?.id === ctx.bot.id;
  const flags = message.flags ?? 0;
  const node = el('discord-message', {
    author: isBot ? ctx.bot.username : (message.author?.global_name ?? message.author?.username ?? 'user'),
    avatar: isBot ? ctx.bot.avatar : opts.avatar,
    bot: isBot,
    ephemeral: Boolean(flags & FLAG_EPHEMERAL),
    timestamp: messageTime(new Date(message.timestamp ?? Date.now()), ctx.lang),
    'data-message-id': message.id,
  });
  if (opts.header) node.append(renderCommandHeader(opts.header));
  if (flags & FLAG_LOADING) {
    node.append(el('span', { class: 'thinking' }, [tr(ctx.lang, 'status.thinking', { bot: ctx.bot.username }), el('span', { class: 'dots' }, ['●', '●', '●'].map((d) => el('i', {}, [d])))]));
  } else if (message.content) {
    node.append(renderMarkdown(message.content, { ...ctx, inEmbed: false }));
  }
  for (const embed of message.embeds ?? []) node.append(renderEmbed(embed, ctx));
  const components = renderComponents(message, ctx);
  if (components) node.append(components);
  if (flags & FLAG_EPHEMERAL) node.dismissMessageClicked = () => ctx.onDismiss(message);
  return node;
}

/** "<user> used /feed list" above a reply, as Discord shows it. */
export function renderCommandHeader(header) {
  return el('discord-command', { slot: 'reply', author: header.author, avatar: header.avatar, command: header.command, type: 'slash_command' });
}

/** What the user sees of their own command before (or instead of) an answer. */
export function renderPending(header, ctx, state) {
  const node = el('discord-message', {
    author: header.author,
    avatar: header.avatar,
    timestamp: messageTime(new Date(header.at), ctx.lang),
    class: `pending ${state}`,
    'data-state': state,
  });
  node.append(el('span', { class: 'invocation' }, [header.invocation]));
  const label = { sending: 'status.sending', expired: 'status.noResponse', modal: 'status.modalOpen', cancelled: 'status.modalClosed' }[state];
  if (label) node.append(el('div', { class: `status-line ${state}` }, [tr(ctx.lang, label)]));
  return node;
}
