/**
 * Posts in a channel that answer no interaction: the bot's own, made through the REST API (the
 * audit channel's embeds, for one), and the forwarding service's, made through its webhook (the
 * posts a member right-clicks for "Feed of this post"). Public, in the order they were posted
 * among the conversations, live as they are created, edited or deleted. A post in a channel the
 * visitor is not looking at marks that channel unread, as Discord does.
 */
import { api } from './api.js';
import { $ } from './dom.js';
import { placeInLog } from './log-order.js';
import { renderMessageSafely } from './render.js';
import { renderContext } from './render-context.js';
import { isNewer, ui } from './state.js';

/** Channel posts by id (the newest version of each). */
const posts = new Map();

/**
 * Live changes taken in while a load of every post is in flight, one list per load: its answer is
 * a snapshot from before them, and they are applied over it (else a post made while the page
 * loads would vanish until the next reconnect).
 */
const duringLoads = new Set();

/** Applies one change to the map; whether it changed anything. */
function apply(action, message) {
  if (action === 'delete') {
    posts.delete(message.id);
    return true;
  }
  if (!isNewer(message, posts.get(message.id))) return false;
  posts.set(message.id, message);
  return true;
}

/** Whether message `id` is one of the channel posts (drawn as such, never inside a conversation). */
export const isPost = (id) => posts.has(id);

/** A message posted in a channel by the bot itself or by a webhook: not an interaction's answer. */
export const isChannelPost = (message, interactionId) => interactionId === null && !message.interaction_metadata;

function renderPost(message) {
  if (message.channel_id !== ui.channelId) return;
  const nodes = posts.has(message.id) ? [renderMessageSafely(message, renderContext())] : [];
  for (const node of nodes) node.dataset.post = message.id;
  placeInLog(`[data-post="${message.id}"]`, message.id, nodes);
}

/** Takes in a created, updated or deleted post; `onUnread(channelId)` when it lands elsewhere. */
export function absorbPost(action, message, onUnread) {
  for (const changes of duringLoads) changes.push([action, message]);
  const changed = apply(action, message);
  // A version already drawn is not drawn again: replacing its node under a visitor's pointer
  // would drop the click (or the open select) they are in the middle of.
  if (message.channel_id === ui.channelId) {
    if (changed) renderPost(message);
  } else if (action === 'create') onUnread(message.channel_id);
}

/** Draws the current channel's posts (after the log was cleared). */
export function renderPosts() {
  for (const message of posts.values()) if (message.channel_id === ui.channelId) renderPost(message);
}

/** Every post already made in the server (at start, and after the event stream reconnects). */
export async function loadPosts() {
  const changes = [];
  duringLoads.add(changes);
  let list;
  try {
    ({ posts: list } = await api('/api/posts'));
  } finally {
    duringLoads.delete(changes);
  }
  posts.clear();
  for (const message of list) posts.set(message.id, message);
  for (const [action, message] of changes) apply(action, message);
  for (const node of $('log').querySelectorAll('[data-post]')) node.remove();
  renderPosts();
  // How many loads have landed: tests wait on it.
  $('app').dataset.postLoads = String(Number($('app').dataset.postLoads ?? 0) + 1);
}
