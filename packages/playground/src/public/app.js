/* global document, window, setInterval, URLSearchParams, customElements */
/**
 * The playground page: a Discord-like client for the demo server. It sends interactions through
 * the playground API (actions.js), follows every change over server-sent events (events.js), and
 * draws each command's conversation (conversations.js) with the @skyra/discord-components-core
 * web components. This module wires them together and starts the page.
 */
import '@skyra/discord-components-core';
import { askAutocomplete, pickInSelect, pressButton, runMessageCommand, sendCommand, showBotModal, showToast } from './actions.js';
import { api } from './api.js';
import { setChannelAdminDeps } from './channel-admin.js';
import { renderChrome, setChromeDeps } from './chrome.js';
import { Composer } from './composer.js';
import { renderAll } from './conversations.js';
import { $, el } from './dom.js';
import { connectEvents } from './events.js';
import { tr } from './i18n.js';
import { refreshTimes } from './markdown.js';
import { closeMessageMenu, openMessageMenu, setMessageMenuDeps } from './message-menu.js';
import { setConversationHooks } from './render-context.js';
import { followBottom } from './scroll.js';
import { actorInfo, channelById, locale, ui } from './state.js';

const composer = new Composer({
  form: $('composer'),
  popup: $('popup'),
  hint: $('composer-hint'),
  search: $('command-search'),
  pill: $('command-pill'),
  options: $('options'),
  send: $('send'),
  error: $('composer-error'),
  getState: () => ({
    lang: ui.lang,
    locale: locale(),
    actorPermissions: actorInfo().permissions,
    channels: ui.info.channels,
    members: ui.info.members,
    roles: ui.info.roles,
    commands: ui.info.commands,
    channelName: channelById(ui.channelId)?.name ?? '',
  }),
  autocomplete: askAutocomplete,
  submit: sendCommand,
});

/** Redraws the page after the visitor changes the channel, language or acting user. */
function redraw() {
  closeMessageMenu();
  renderChrome();
  renderAll();
  composer.refresh();
}

function openChannel(id) {
  ui.channelId = id;
  ui.unread.delete(id);
  redraw();
}

/**
 * The server's channels changed (created or deleted here or elsewhere): read its description
 * again, leave a channel that is gone, and open `focus` (a channel just created) if given.
 */
async function reloadGuild(focus) {
  ui.info = await api('/api/state');
  const next = focus ?? (channelById(ui.channelId) ? ui.channelId : (ui.info.channels[0]?.id ?? ''));
  if (next !== ui.channelId) openChannel(next);
  else redraw();
}

function listenToSwitches() {
  for (const b of document.querySelectorAll('[data-actor]')) {
    b.addEventListener('click', () => {
      ui.actor = b.dataset.actor;
      // Another user sees other private answers (and may not run the command being composed).
      composer.clear(false);
      redraw();
    });
  }
  for (const b of document.querySelectorAll('[data-lang]')) {
    b.addEventListener('click', () => {
      ui.lang = b.dataset.lang;
      redraw();
    });
  }
}

async function start() {
  ui.info = await api('/api/state');
  ui.botRunning = ui.info.bot.running;
  const params = new URLSearchParams(window.location.search);
  if (params.get('lang') === 'es') ui.lang = 'es';
  ui.channelId = ui.info.channels[0]?.id ?? '';
  setConversationHooks({ onButton: pressButton, onSelect: pickInSelect, onMessageMenu: openMessageMenu, onModal: showBotModal, onError: showToast });
  setMessageMenuDeps({ run: runMessageCommand });
  setChromeDeps({ composer, onChannel: openChannel });
  setChannelAdminDeps({ onChanged: reloadGuild });
  listenToSwitches();
  renderChrome();
  composer.refresh();
  followBottom();
  connectEvents({ onGuildChanged: () => reloadGuild().catch((error) => showToast(error.message)) });
  await customElements.whenDefined('discord-message');
  setInterval(() => refreshTimes(document, ui.lang), 15_000);
  $('app').dataset.ready = 'true';
}

start().catch((error) => {
  document.body.prepend(el('pre', { class: 'fatal' }, [tr(ui.lang, 'fatal', { error: error.message })]));
});
