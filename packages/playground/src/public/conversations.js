/**
 * The conversations started on this page: taking in what the emulator reports (interaction
 * snapshots, message changes) and keeping the log drawn for the current channel and acting user.
 */
import { $ } from './dom.js';
import { groupNodes } from './group-view.js';
import { tr } from './i18n.js';
import { placeInLog, showWelcome } from './log-order.js';
import { renderPosts } from './posts.js';
import { hooks, renderContext } from './render-context.js';
import { follow, toBottom } from './scroll.js';
import { actorInfo, isNewer, store, ui } from './state.js';

function dismiss(message) {
  const root = store.messageRoot.get(message.id);
  store.groups.get(root)?.dismissed.add(message.id);
  renderGroup(root);
}

/** The newest version of a message wins (an older snapshot may arrive after an edit). */
export function keepMessage(message) {
  if (isNewer(message, store.messages.get(message.id))) store.messages.set(message.id, message);
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
  // Answered, or never to be (expired): the pressed button or select takes clicks again.
  if ((current.ack || current.state !== 'pending') && store.busyButtons.has(current.id)) {
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
  followAnswer(current);
}

/** Callback types that answer with a new message (4, or 5 and the message edited later). */
const NEW_MESSAGE = new Set([4, 5]);

/** Follows the new message answering one of the visitor's own presses, picks or forms, once. */
function followAnswer(snapshot) {
  if (!store.following.has(snapshot.id)) return;
  if (!snapshot.ack) {
    if (snapshot.state !== 'pending') store.following.delete(snapshot.id);
    return;
  }
  store.following.delete(snapshot.id);
  if (!NEW_MESSAGE.has(snapshot.ack.type) || !snapshot.original) return;
  const node = $('log').querySelector(`:scope > [data-message-id="${snapshot.original.id}"]`);
  if (node) follow(node);
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
  placeInLog(`[data-group="${root}"]`, root, groupNodes(group, renderContext(dismiss), actorInfo().userId));
}

/** Redraws the log: another channel, language or acting user. */
export function renderAll() {
  $('log').replaceChildren();
  for (const group of store.groups.values()) if (group.channelId === ui.channelId) renderGroup(group.root);
  renderPosts();
  showWelcome();
  toBottom();
}
