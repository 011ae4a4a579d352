/**
 * One conversation (a command, the bot's answers, the buttons pressed and forms sent from it) as
 * the elements of the log.
 */
import { el } from './dom.js';
import { tr } from './i18n.js';
import { renderMessage, renderPending } from './render.js';
import { store } from './state.js';

/** The messages of `group`, oldest first. */
function groupMessages(group) {
  const seen = new Set();
  const list = [];
  for (const id of group.members) {
    const s = store.snapshots.get(id);
    if (!s) continue;
    for (const m of [s.originalDeleted ? null : s.original, ...s.followUps]) {
      if (!m || seen.has(m.id) || store.deletedMessages.has(m.id) || group.dismissed.has(m.id)) continue;
      seen.add(m.id);
      store.messageRoot.set(m.id, group.root);
      list.push(store.messages.get(m.id) ?? m);
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

export function groupNodes(group, ctx) {
  const header = group.header;
  const list = groupMessages(group);
  const nodes = list.length
    ? list.map((m, i) => renderMessage(m, ctx, { header: i === 0 ? header : null }))
    : [renderPending(header, ctx, pendingState(group))];
  // A button press or form that went unanswered shows under the conversation, as in Discord.
  for (const id of group.members.slice(1)) {
    const s = store.snapshots.get(id);
    if (s && !s.ack && s.state === 'expired') nodes.push(el('div', { class: 'status-line expired loose' }, [tr(ctx.lang, 'status.noResponse')]));
  }
  for (const node of nodes) node.dataset.group = group.root;
  return nodes;
}
