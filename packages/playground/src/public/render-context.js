/**
 * What drawing a message needs to know about the page: the client's language, the bot, names for
 * mentions, where links really point (the sandbox's media and the emulator's attachments come
 * through the playground server), and what its buttons, selects and right-click menu do.
 */
import { channelById, ui } from './state.js';

/** Set by the page at start: what a button press and a bot's form lead to, and where errors go. */
export const hooks = { onButton: () => undefined, onSelect: () => undefined, onMessageMenu: () => undefined, onModal: () => undefined, onError: () => undefined };

export function setConversationHooks(given) {
  Object.assign(hooks, given);
}

/** The emulator's attachment URL as the playground serves it, or the URL itself. */
function attachmentLink(url) {
  const base = ui.info.attachmentsUrl;
  return base && url.startsWith(base) ? `/attachments/${url.slice(base.length)}` : url;
}

/** `onDismiss(message)` runs when the viewer dismisses an ephemeral message. */
export function renderContext(onDismiss = () => undefined) {
  const info = ui.info;
  const sandboxOrigin = info.sandboxOrigin;
  return {
    lang: ui.lang,
    bot: { id: info.bot.id, username: info.bot.username, avatar: info.bot.avatar },
    channelName: (id) => channelById(id)?.name,
    userName: (id) => info.members.find((m) => m.id === id)?.name,
    roleName: (id) => info.roles.find((r) => r.id === id)?.name,
    // The sandbox's self-signed HTTPS is not trusted by browsers: its media comes through the proxy.
    link: (url) => (url.startsWith(`${sandboxOrigin}/`) ? `/sandbox/${url.slice(sandboxOrigin.length + 1)}` : attachmentLink(url)),
    /** /api/state: the server's channels, roles and members a select offers. */
    info,
    onButton: (message, customId, button) => hooks.onButton(message, customId, button),
    onSelect: (message, customId, values, node, label) => hooks.onSelect(message, customId, values, node, label),
    /** `where`: `{ x, y }` of a right click, or `{ anchor }`, the "⋯" button that opened it. */
    onMessageMenu: (message, where) => hooks.onMessageMenu(message, where),
    onDismiss,
  };
}
