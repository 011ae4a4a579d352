/* global EventSource */
/**
 * Follows the demo over server-sent events: the bot's status, interactions, message changes (of
 * the page's conversations and the bot's channel posts), changes to the server's channels and to
 * the demo's notes (the banner about the server's API key).
 */
import { api } from './api.js';
import { renderChrome } from './chrome.js';
import { absorb, keepMessage, renderGroup } from './conversations.js';
import { $ } from './dom.js';
import { absorbPost, isChannelPost, loadPosts } from './posts.js';
import { store, ui } from './state.js';

/** `onGuildChanged()` runs when the server's channels (or roles) changed. */
export function connectEvents({ onGuildChanged }) {
  const source = new EventSource('/api/events');
  source.addEventListener('hello', (event) => {
    const hello = JSON.parse(event.data);
    ui.botRunning = hello.botRunning;
    if (hello.notes) ui.info.notes = hello.notes;
    $('app').dataset.connected = 'true';
    renderChrome();
    // Catch up on whatever changed while disconnected.
    for (const id of store.rootOf.keys()) void api(`/api/interactions/${id}`).then(absorb).catch(() => undefined);
    void loadPosts().catch(() => undefined);
  });
  source.addEventListener('bot', (event) => {
    ui.botRunning = JSON.parse(event.data).botRunning;
    renderChrome();
  });
  // The demo's banner changed: the server's key was removed or set by a command.
  source.addEventListener('notes', (event) => {
    ui.info.notes = JSON.parse(event.data).notes;
    renderChrome();
  });
  source.addEventListener('interaction', (event) => absorb(JSON.parse(event.data)));
  source.addEventListener('message', (event) => {
    const { action, message, interactionId } = JSON.parse(event.data);
    if (isChannelPost(message, interactionId)) {
      absorbPost(action, message, (channelId) => {
        ui.unread.add(channelId);
        renderChrome();
      });
      return;
    }
    if (action === 'delete') store.deletedMessages.add(message.id);
    else keepMessage(message);
    const root = store.messageRoot.get(message.id);
    if (root !== undefined) renderGroup(root);
  });
  source.addEventListener('guild', () => void onGuildChanged());
  source.onerror = () => {
    $('app').dataset.connected = 'false';
  };
}
