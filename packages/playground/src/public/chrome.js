/* global document, navigator */
/**
 * Everything around the log, in the client's language: server and channel list (with unread
 * marks and the owner's channel actions), the actor and language switches, the user panel, the
 * bot's status, the welcome text and the demo's notes.
 */
import { canManageChannels, openChannelMenu, openCreateChannel } from './channel-admin.js';
import { entryName } from './commands.js';
import { $, el, icon } from './dom.js';
import { tr } from './i18n.js';
import { actorInfo, channelById, locale, ui } from './state.js';

/** Set by the page at start: the composer (for suggestion chips) and what picking a channel does. */
const deps = { composer: null, onChannel: () => undefined };

export function setChromeDeps(given) {
  Object.assign(deps, given);
}

export function renderChrome() {
  const info = ui.info;
  const lang = ui.lang;
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = tr(lang, node.dataset.i18n);
  for (const node of document.querySelectorAll('[data-i18n-label]')) node.setAttribute('aria-label', tr(lang, node.dataset.i18nLabel));
  $('server-name').textContent = info.guild.name;
  $('server-icon').title = info.guild.name;
  $('server-icon').textContent = info.guild.name.split(/\s+/).map((w) => w[0]?.toUpperCase() ?? '').join('').slice(0, 3);
  renderChannels();
  const channel = channelById(ui.channelId);
  // The channel's icon as in the sidebar: Discord's megaphone for an announcement channel.
  const mark = (size) => (channel?.type === 5 ? icon('announcement', size) : '#');
  document.querySelector('.chat-header .hash').replaceChildren(mark(24));
  $('chat-title').textContent = channel?.name ?? '';
  $('chat-topic').textContent = info.guild.name;
  renderSwitches();
  const status = $('bot-status');
  status.textContent = tr(lang, ui.botRunning ? 'status.botUp' : 'status.botDown');
  status.dataset.up = String(ui.botRunning);
  renderTransport();
  $('welcome').replaceChildren(
    el('div', { class: 'welcome-icon' }, [mark(40)]),
    el('h1', {}, [tr(lang, 'welcome.title', { channel: channel?.name ?? '' })]),
    el('p', {}, [tr(lang, 'welcome.body')]),
    el('p', { class: 'welcome-try' }, [`${tr(lang, 'welcome.try')}: `, ...['feed list', 'feed posts', 'stats', 'feed create'].map((k) => suggestion(k))]),
  );
  renderNotes();
}

/** The badge saying how interactions reach the bot; its tooltip names the Interactions Endpoint URL. */
function renderTransport() {
  const { transport, endpoint, replicas } = ui.info;
  const badge = $('transport');
  const replicaText = replicas > 1 ? ` · ${tr(ui.lang, 'transport.replicas', { n: replicas })}` : '';
  badge.textContent = `${tr(ui.lang, `transport.${transport}`)}${replicaText}`;
  badge.title = tr(ui.lang, `transport.${transport}.hint`, { endpoint: endpoint ?? '' });
  badge.dataset.transport = transport;
}

/** The category with its + (for the owner), then each channel: unread ones bright, as in Discord. */
function renderChannels() {
  const info = ui.info;
  const list = $('channel-list');
  const category = el('div', { class: 'category' }, [el('span', {}, [info.categories[0]?.name ?? tr(ui.lang, 'channels.text')])]);
  if (canManageChannels()) {
    const label = tr(ui.lang, 'channels.create');
    const add = el('button', { type: 'button', class: 'category-add', title: label, 'aria-label': label, 'data-testid': 'add-channel' }, [icon('plus', 16)]);
    add.addEventListener('click', openCreateChannel);
    category.append(add);
  }
  list.replaceChildren(category);
  for (const channel of info.channels) {
    const unread = ui.unread.has(channel.id) && channel.id !== ui.channelId;
    const item = el('button', { type: 'button', role: 'listitem', class: `channel${channel.id === ui.channelId ? ' active' : ''}`, 'data-channel': channel.name, 'data-unread': unread }, [
      // Discord's megaphone for announcement channels.
      el('span', { class: 'hash' }, [channel.type === 5 ? icon('announcement') : '#']),
      channel.name,
    ]);
    item.addEventListener('click', () => deps.onChannel(channel.id));
    item.addEventListener('contextmenu', (event) => openChannelMenu(event, channel));
    list.append(item);
  }
}

/** The actor and language switches, and the acting user's panel. */
function renderSwitches() {
  const lang = ui.lang;
  for (const b of document.querySelectorAll('[data-actor]')) {
    b.textContent = tr(lang, `actor.${b.dataset.actor}`);
    b.setAttribute('aria-pressed', String(b.dataset.actor === ui.actor));
  }
  for (const b of document.querySelectorAll('[data-lang]')) b.setAttribute('aria-pressed', String(b.dataset.lang === ui.lang));
  const actor = actorInfo();
  $('actor-hint').textContent = `${actor.displayName} · ${tr(lang, `actor.${ui.actor}.hint`)}`;
  $('me-avatar').src = actor.avatar;
  $('me-name').textContent = actor.displayName;
  $('me-status').textContent = `@${actor.username} · ${locale()}`;
}

function suggestion(key) {
  const entry = deps.composer.entries().find((e) => e.key === key);
  if (!entry) return '';
  const chip = el('button', { type: 'button', class: 'suggestion' }, [`/${entryName(entry, locale())}`]);
  chip.addEventListener('click', () => deps.composer.select(entry));
  return chip;
}

function renderNotes() {
  const box = $('notes');
  box.replaceChildren();
  for (const note of ui.info.notes) box.append(el('div', { class: `note ${note.kind}`, 'data-testid': 'note' }, [note.text[ui.lang] ?? note.text.en]));
  const keyRow = el('div', { class: 'note key' }, [
    el('span', {}, [`${tr(ui.lang, 'key.label')}: `]),
    el('code', {}, [`${ui.info.demoKey.slice(0, 8)}…${ui.info.demoKey.slice(-4)}`]),
  ]);
  const copy = el('button', { type: 'button', class: 'copy' }, [tr(ui.lang, 'key.copy')]);
  copy.addEventListener('click', () => {
    void navigator.clipboard?.writeText(ui.info.demoKey).then(() => (copy.textContent = tr(ui.lang, 'key.copied')));
  });
  keyRow.append(copy);
  box.append(keyRow);
}
