/**
 * The conversations started on this page: taking in what the emulator reports (interaction
 * snapshots, message changes) and keeping the log drawn for the current channel and acting user.
 */
import { $ } from './dom.js';
import { groupNodes } from './group-view.js';
import { tr } from './i18n.js';
import { toBottom } from './scroll.js';
import { actorInfo, channelById, store, ui } from './state.js';

/** Set by the page at start: what a button press and a bot's form lead to, and where errors go. */
const hooks = { onButton: () => undefined, onModal: () => undefined, onError: () => undefined };

export function setConversationHooks(given) {
  Object.assign(hooks, given);
}

function renderContext() {
  const info = ui.info;
  const sandboxOrigin = info.sandboxOrigin;
  return {
    lang: ui.lang,
    bot: { id: info.bot.id, username: info.bot.username, avatar: info.bot.avatar },
    channelName: (id) => channelById(id)?.name,
    userName: (id) => info.members.find((m) => m.id === id)?.name,
    roleName: (id) => info.roles.find((r) => r.id === id)?.name,
    // The sandbox's self-signed HTTPS is not trusted by browsers: its media comes through the proxy.
    link: (url) => (url.startsWith(`${sandboxOrigin}/`) ? `/sandbox/${url.slice(sandboxOrigin.length + 1)}` : url),
    onButton: (message, customId, button) => hooks.onButton(message, customId, button),
    onDismiss: (message) => {
      const root = store.messageRoot.get(message.id);
      store.groups.get(root)?.dismissed.add(message.id);
      renderGroup(root);
    },
  };
}

/** The newest version of a message wins (an older snapshot may arrive after an edit). */
export function keepMessage(message) {
  const known = store.messages.get(message.id);
  const stamp = (m) => Date.parse(m.edited_timestamp ?? m.timestamp ?? 0) || 0;
  if (!known || stamp(message) >= stamp(known)) store.messages.set(message.id, message);
}

export function absorb(snapshot) {
  const known = store.snapshots.get(snapshot.id);
  // Events can overtake the POST that started the interaction: keep the newest version.
  if (!known || snapshot.version >= known.version) {
    store.snapshots.set(snapshot.id, snapshot);
    for (const m of [snapshot.original, ...snapshot.followUps]) if (m) keepMessage(m);
  }
  const current = store.snapshots.get(snapshot.id);
  const root = store.rootOf.get(current.id);
  if (root === undefined) return;
  if (current.ack && store.busyButtons.has(current.id)) {
    store.busyButtons.get(current.id).removeAttribute('data-busy');
    store.busyButtons.delete(current.id);
  }
  // A form opens for the user who asked for it only.
  if (current.ack?.type === 9 && current.modal && !store.modalsShown.has(current.id) && current.userId === actorInfo().userId) {
    try {
      hooks.onModal(current, root);
    } catch (error) {
      hooks.onError(tr(ui.lang, 'modal.failed', { error: error.message }));
    }
  }
  renderGroup(root);
}

/** Adds `snapshot` to the conversation `root`; a `header` starts a new conversation. */
export function track(snapshot, root, header) {
  if (header) store.groups.set(root, { root, channelId: header.channelId, header, members: [root], dismissed: new Set(), cancelled: false });
  else store.groups.get(root)?.members.push(snapshot.id);
  store.rootOf.set(snapshot.id, root);
  absorb(snapshot);
  renderGroup(root);
}

export function cancelForm(root) {
  const group = store.groups.get(root);
  if (group) group.cancelled = true;
  renderGroup(root);
}

export function renderGroup(root) {
  const group = store.groups.get(root);
  if (!group || group.channelId !== ui.channelId) return;
  const log = $('log');
  const old = [...log.querySelectorAll(`[data-group="${root}"]`)];
  const fresh = groupNodes(group, renderContext(), actorInfo().userId);
  if (old.length) {
    old[0].before(...fresh);
    for (const node of old) node.remove();
  } else {
    const next = laterGroupNode(root);
    if (next) next.before(...fresh);
    else log.append(...fresh);
  }
  $('welcome').hidden = log.children.length > 0;
}

/** The first element drawn for a conversation started after `root` (one hidden until now goes before it). */
function laterGroupNode(root) {
  const roots = [...store.groups.keys()];
  for (const later of roots.slice(roots.indexOf(root) + 1)) {
    const node = $('log').querySelector(`[data-group="${later}"]`);
    if (node) return node;
  }
  return null;
}

/** Redraws the log: another channel, language or acting user. */
export function renderAll() {
  $('log').replaceChildren();
  for (const group of store.groups.values()) if (group.channelId === ui.channelId) renderGroup(group.root);
  $('welcome').hidden = $('log').children.length > 0;
  toBottom();
}
