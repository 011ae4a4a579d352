/**
 * Discord API messages (what the bot sent the emulator) → the renderer's web components:
 * <discord-message> with content, embeds and buttons (embed.js), and the ephemeral marking.
 * Nothing here imitates Discord's CSS; the components do the drawing.
 */
import { messageTime } from './dates.js';
import { el } from './dom.js';
import { renderComponents, renderEmbed } from './embed.js';
import { tr } from './i18n.js';
import { renderMarkdown } from './markdown.js';

export const FLAG_EPHEMERAL = 1 << 6;
export const FLAG_LOADING = 1 << 7;

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
