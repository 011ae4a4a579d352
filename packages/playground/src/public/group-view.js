/**
 * One conversation (a command, the bot's answers, the buttons pressed and forms sent from it) as
 * the elements the acting user sees. Ephemeral messages are visible only to the user whose
 * interaction they answer, as in Discord; a conversation the viewer cannot see any of is not
 * drawn at all. A message that fails to draw is replaced, never allowed to stop the others.
 */
import { el } from './dom.js';
import { tr } from './i18n.js';
import { drawnFrom } from './log-order.js';
import { FLAG_EPHEMERAL, renderMessageSafely, renderPending } from './render.js';
import { isPost } from './posts.js';
import { store } from './state.js';

const isEphemeral = (message) => Boolean((message.flags ?? 0) & FLAG_EPHEMERAL);

/** The messages of `group` that `viewerId` may see, oldest first. */
function visibleMessages(group, viewerId) {
  const seen = new Set();
  const list = [];
  for (const id of group.members) {
    const snapshot = store.snapshots.get(id);
    if (!snapshot) continue;
    for (const m of [snapshot.originalDeleted ? null : snapshot.original, ...snapshot.followUps]) {
      // A post a select or button on it changed (type 7) is drawn as the post, not again here.
      if (!m || seen.has(m.id) || store.deletedMessages.has(m.id) || group.dismissed.has(m.id) || isPost(m.id)) continue;
      seen.add(m.id);
      store.messageRoot.set(m.id, group.root);
      const message = store.messages.get(m.id) ?? m;
      // Only the user who triggered an interaction sees its ephemeral answers.
      if (isEphemeral(message) && snapshot.userId !== viewerId) continue;
      list.push(message);
    }
  }
  return list.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

function pendingState(group) {
  const root = store.snapshots.get(group.root);
  if (!root || (!root.ack && root.state === 'pending')) return 'sending';
  if (!root.ack && root.state === 'expired') return 'expired';
  if (root.ack?.type === 9) {
    const submitted = group.members.some((id) => store.snapshots.get(id)?.kind === 'modal_submit');
    if (submitted) return 'sending';
    return group.cancelled ? 'cancelled' : 'modal';
  }
  return 'sending';
}

/** The elements of `group` for `viewerId` (an empty list when nothing of it is theirs to see). */
export function groupNodes(group, ctx, viewerId) {
  const list = visibleMessages(group, viewerId);
  const own = group.header.userId === viewerId;
  // A press or pick on a post answered by changing the post (6, 7) has nothing of its own to show.
  const rootAck = store.snapshots.get(group.root)?.ack?.type;
  const updatedOnly = rootAck === 6 || rootAck === 7;
  // The answer was there and the viewer dismissed it: as in Discord, nothing of it stays behind.
  const dismissed = group.dismissed.size > 0;
  const nodes = list.length
    ? list.map((m, i) => {
        const header = i === 0 ? group.header : null;
        return drawnFrom(renderMessageSafely(m, ctx, { header }), JSON.stringify([ctx.lang, viewerId, header, m]));
      })
    : own && !updatedOnly && !dismissed
      ? [renderPending(group.header, ctx, pendingState(group))]
      : [];
  // A button press or form that went unanswered shows under the conversation, to whoever sent it.
  for (const id of group.members.slice(1)) {
    const s = store.snapshots.get(id);
    if (s && !s.ack && s.state === 'expired' && s.userId === viewerId) {
      nodes.push(el('div', { class: 'status-line expired loose' }, [tr(ctx.lang, 'status.noResponse')]));
    }
  }
  for (const node of nodes) node.dataset.group = group.root;
  return nodes;
}
