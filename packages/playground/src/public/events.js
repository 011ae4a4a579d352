/* global EventSource */
/** Follows the demo over server-sent events: the bot's status, interactions and message changes. */
import { api } from './api.js';
import { renderChrome } from './chrome.js';
import { absorb, keepMessage, renderGroup } from './conversations.js';
import { $ } from './dom.js';
import { store, ui } from './state.js';

export function connectEvents() {
  const source = new EventSource('/api/events');
  source.addEventListener('hello', (event) => {
    ui.botRunning = JSON.parse(event.data).botRunning;
    $('app').dataset.connected = 'true';
    renderChrome();
    // Catch up on whatever changed while disconnected.
    for (const id of store.rootOf.keys()) void api(`/api/interactions/${id}`).then(absorb).catch(() => undefined);
  });
  source.addEventListener('bot', (event) => {
    ui.botRunning = JSON.parse(event.data).botRunning;
    renderChrome();
  });
  source.addEventListener('interaction', (event) => absorb(JSON.parse(event.data)));
  source.addEventListener('message', (event) => {
    const { action, message } = JSON.parse(event.data);
    if (action === 'delete') store.deletedMessages.add(message.id);
    else keepMessage(message);
    const root = store.messageRoot.get(message.id);
    if (root !== undefined) renderGroup(root);
  });
  source.onerror = () => {
    $('app').dataset.connected = 'false';
  };
}
