/**
 * What the page knows: the visitor's choices (language, acting user, channel), the demo's
 * description from /api/state, and everything the emulator told us about the conversations
 * started on this page.
 */
import { LOCALE_OF } from './i18n.js';

export const ui = {
  lang: 'en',
  actor: 'admin',
  channelId: '',
  /** /api/state: guild, channels, members, roles, actors, bot, transport, commands, notes, demo key, attachments URL. */
  info: null,
  botRunning: true,
  /** Channels with a post the visitor has not looked at yet. */
  unread: new Set(),
};

export const store = {
  /** Interaction snapshots by id (the newest version of each). */
  snapshots: new Map(),
  /** Messages by id (the newest version of each, from snapshots or message events). */
  messages: new Map(),
  deletedMessages: new Set(),
  /** Conversations started on this page: root interaction id → group. */
  groups: new Map(),
  /** Interaction id → the root of its conversation. */
  rootOf: new Map(),
  /** Message id → the root of the conversation it is drawn in. */
  messageRoot: new Map(),
  /** Interactions whose form was already shown. */
  modalsShown: new Set(),
  /** Pressed buttons waiting for their interaction's answer, by interaction id. */
  busyButtons: new Map(),
  /** The visitor's presses, picks, forms and message commands whose first answer the view follows. */
  following: new Set(),
};

export const locale = () => LOCALE_OF[ui.lang];
export const actorInfo = () => ui.info.actors[ui.actor];
/** Who the API calls are made as: the acting user and their client's locale. */
export const who = () => ({ actor: ui.actor, locale: locale() });
export const channelById = (id) => ui.info.channels.find((c) => c.id === id);

/** Whether `message` is at least as new as `known` (an older copy may arrive after an edit). */
export function isNewer(message, known) {
  const stamp = (m) => Date.parse(m.edited_timestamp ?? m.timestamp ?? 0) || 0;
  return !known || stamp(message) >= stamp(known);
}
