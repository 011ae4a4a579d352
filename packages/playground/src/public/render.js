/* global console */
/**
 * Discord API messages (what the bot sent the emulator) → the renderer's web components: a
 * <discord-message> with its content, files (attachments.js), embeds and buttons (embed.js). The
 * labels the renderer has only in English are drawn here in the client's language instead: the
 * private-answer line under an ephemeral message and the "<user> used /command" line above an answer.
 * A right click on a message, or its "⋯" button, opens its menu (message-menu.js).
 */
import { renderAttachments } from './attachments.js';
import { messageTime } from './dates.js';
import { el, icon } from './dom.js';
import { renderComponents, renderEmbed } from './embed.js';
import { tr } from './i18n.js';
import { renderMarkdown } from './markdown.js';
import { moreButton } from './message-menu.js';

export const FLAG_EPHEMERAL = 1 << 6;
export const FLAG_LOADING = 1 << 7;

/** A webhook's picture (the forwarding service posts through one), not the renderer's default, which is feedbot's. */
const WEBHOOK_AVATAR = '/static/avatars/webhook.svg';

/** The message element; `extra` attributes add to (or replace) the author's. */
function messageNode(message, ctx, extra = {}) {
  const isBot = message.author?.id === ctx.bot.id;
  return el('discord-message', {
    author: isBot ? ctx.bot.username : (message.author?.global_name ?? message.author?.username ?? 'user'),
    avatar: isBot ? ctx.bot.avatar : message.webhook_id ? WEBHOOK_AVATAR : undefined,
    bot: isBot || Boolean(message.author?.bot),
    timestamp: messageTime(message.timestamp ?? Date.now(), ctx.lang) || String(message.timestamp),
    'data-message-id': message.id,
    ...extra,
  });
}

/**
 * One bot (or user) message. `opts.header` adds the "<user> used /command" line above it. A
 * deferred answer shows the bot thinking instead of its (empty) content.
 */
export function renderMessage(message, ctx, opts = {}) {
  const flags = message.flags ?? 0;
  const ephemeral = Boolean(flags & FLAG_EPHEMERAL);
  // Not the renderer's `ephemeral` attribute: that one writes its line in English only.
  const node = messageNode(message, ctx, { 'data-ephemeral': ephemeral });
  if (opts.header) node.append(renderCommandHeader(opts.header, ctx.lang));
  if (flags & FLAG_LOADING) {
    node.append(el('span', { class: 'thinking' }, [tr(ctx.lang, 'status.thinking', { bot: ctx.bot.username }), el('span', { class: 'dots' }, ['●', '●', '●'].map((d) => el('i', {}, [d])))]));
  } else if (message.content) {
    node.append(renderMarkdown(message.content, { ...ctx, inEmbed: false }));
  }
  const files = renderAttachments(message, ctx);
  if (files) node.append(files);
  for (const embed of message.embeds ?? []) node.append(renderEmbed(embed, ctx));
  const components = renderComponents(message, ctx);
  if (components) node.append(components);
  if (ephemeral) node.append(ephemeralNote(ctx.lang, () => ctx.onDismiss(message)));
  if (ctx.onMessageMenu && !(flags & FLAG_LOADING)) {
    node.append(moreButton(message, ctx.lang, ctx.onMessageMenu));
    node.addEventListener('contextmenu', (event) => {
      event.preventDefault();
      ctx.onMessageMenu(message, { x: event.clientX, y: event.clientY });
    });
  }
  return node;
}

/** renderMessage, or what stands for a message that fails to draw: one such never stops the others. */
export function renderMessageSafely(message, ctx, opts = {}) {
  try {
    return renderMessage(message, ctx, opts);
  } catch (error) {
    console.error('a message could not be drawn', message.id, error);
    return renderUnreadable(message, ctx);
  }
}

/** What stands for a message the page could not draw, so the rest of its conversation still shows. */
function renderUnreadable(message, ctx) {
  const node = messageNode(message, ctx);
  node.append(el('div', { class: 'status-line expired' }, [tr(ctx.lang, 'message.failed')]));
  return node;
}

/** "Only you can see this • Dismiss message" under an ephemeral message, as Discord shows it. */
function ephemeralNote(lang, dismiss) {
  const link = el('span', { role: 'button', tabindex: '0', class: 'ephemeral-dismiss' }, [tr(lang, 'ephemeral.dismiss')]);
  link.addEventListener('click', dismiss);
  link.addEventListener('keydown', (event) => {
    if (event.code !== 'Space' && event.key !== 'Enter') return;
    event.preventDefault();
    dismiss();
  });
  // The last of the message's slots, so the line stays under embeds and buttons.
  return el('div', { class: 'ephemeral-note', slot: 'thread' }, [icon('eye', 16), `${tr(lang, 'ephemeral.note')} • `, link]);
}

/** "<user> used /feed list" above a reply, in the renderer's reply line (its text is ours). */
export function renderCommandHeader(header, lang) {
  return el('discord-reply', { slot: 'reply', class: 'command-header', author: header.author, avatar: header.avatar }, [
    el('span', { class: 'command-used' }, [`${tr(lang, 'used')} `]),
    el('span', { class: 'slash-command' }, [icon('command', 10), header.command]),
  ]);
}

/** What the user sees of their own command before (or instead of) an answer. */
export function renderPending(header, ctx, state) {
  const node = el('discord-message', {
    author: header.author,
    avatar: header.avatar,
    timestamp: messageTime(header.at, ctx.lang),
    class: `pending ${state}`,
    'data-state': state,
  });
  node.append(el('span', { class: 'invocation' }, [header.invocation]));
  const label = { sending: 'status.sending', expired: 'status.noResponse', modal: 'status.modalOpen', cancelled: 'status.modalClosed' }[state];
  if (label) node.append(el('div', { class: `status-line ${state}` }, [tr(ctx.lang, label)]));
  return node;
}
