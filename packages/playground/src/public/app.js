/* global document, window, fetch, EventSource, navigator, setInterval, URLSearchParams, customElements, ResizeObserver */
/**
 * The playground page: a Discord-like client for the demo server. It sends interactions through
 * the playground API, follows every change over server-sent events, and draws each command's
 * conversation (the command line, the bot's replies, in-place updates, modals) with the
 * @skyra/discord-components-core web components.
 */
import '@skyra/discord-components-core';
import { Composer, entryName } from './composer.js';
import { LOCALE_OF, localized, tr } from './i18n.js';
import { refreshTimes } from './markdown.js';
import { el, renderMessage, renderPending } from './render.js';

const $ = (id) => document.getElementById(id);

const ui = {
  lang: 'en',
  actor: 'admin',
  channelId: '',
  info: null,
  botRunning: true,
};

/** Everything the emulator told us, by id. */
const snapshots = new Map();
const messages = new Map();
const deletedMessages = new Set();
/** Conversations started on this page: root interaction id → group. */
const groups = new Map();
const rootOf = new Map();
const messageRoot = new Map();
const modalsShown = new Set();
const busyButtons = new Map();

const locale = () => LOCALE_OF[ui.lang];
const actorInfo = () => ui.info.actors[ui.actor];

// ─── API ────────────────────────────────────────────────────────────────────────────────────

async function api(path, body) {
  const res = await fetch(path, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error ?? `HTTP ${res.status}`);
  return data;
}

const who = () => ({ actor: ui.actor, locale: locale() });

// ─── Render context ─────────────────────────────────────────────────────────────────────────

function renderContext() {
  const info = ui.info;
  const sandboxOrigin = info.sandboxOrigin;
  return {
    lang: ui.lang,
    bot: { id: info.bot.id, username: info.bot.username, avatar: info.bot.avatar },
    channelName: (id) => info.channels.find((c) => c.id === id)?.name,
    userName: (id) => info.members.find((m) => m.id === id)?.name,
    roleName: (id) => info.roles.find((r) => r.id === id)?.name,
    // The sandbox's self-signed HTTPS is not trusted by browsers: its media comes through the proxy.
    link: (url) => (url.startsWith(`${sandboxOrigin}/`) ? `/sandbox/${url.slice(sandboxOrigin.length + 1)}` : url),
    onButton: (message, customId, button) => void pressButton(message, customId, button),
    onDismiss: (message) => {
      const root = messageRoot.get(message.id);
      groups.get(root)?.dismissed.add(message.id);
      renderGroup(root);
    },
  };
}

// ─── Conversations ──────────────────────────────────────────────────────────────────────────

function absorb(snapshot) {
  const known = snapshots.get(snapshot.id);
  // Events can overtake the POST that started the interaction: keep the newest version.
  if (!known || snapshot.version >= known.version) {
    snapshots.set(snapshot.id, snapshot);
    for (const m of [snapshot.original, ...snapshot.followUps]) if (m) keepMessage(m);
  }
  const current = snapshots.get(snapshot.id);
  const root = rootOf.get(current.id);
  if (root === undefined) return;
  if (current.ack && busyButtons.has(current.id)) {
    busyButtons.get(current.id).removeAttribute('data-busy');
    busyButtons.delete(current.id);
  }
  if (current.ack?.type === 9 && current.modal && !modalsShown.has(current.id)) {
    openModal(current, root).catch((error) => showToast(`the form could not be shown: ${error.message}`));
  }
  renderGroup(root);
}

/** The newest version of a message wins (an older snapshot may arrive after an edit). */
function keepMessage(message) {
  const known = messages.get(message.id);
  const stamp = (m) => Date.parse(m.edited_timestamp ?? m.timestamp ?? 0) || 0;
  if (!known || stamp(message) >= stamp(known)) messages.set(message.id, message);
}

function track(snapshot, root, header) {
  if (header) groups.set(root, { root, channelId: header.channelId, header, members: [root], dismissed: new Set(), cancelled: false });
  else groups.get(root)?.members.push(snapshot.id);
  rootOf.set(snapshot.id, root);
  absorb(snapshot);
  renderGroup(root);
}

function groupMessages(group) {
  const seen = new Set();
  const list = [];
  for (const id of group.members) {
    const s = snapshots.get(id);
    if (!s) continue;
    for (const m of [s.originalDeleted ? null : s.original, ...s.followUps]) {
      if (!m || seen.has(m.id) || deletedMessages.has(m.id) || group.dismissed.has(m.id)) continue;
      seen.add(m.id);
      messageRoot.set(m.id, group.root);
      list.push(messages.get(m.id) ?? m);
    }
  }
  return list.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

function pendingState(group) {
  const root = snapshots.get(group.root);
  if (!root || (!root.ack && root.state === 'pending')) return 'sending';
  if (!root.ack && root.state === 'expired') return 'expired';
  if (root.ack?.type === 9) {
    const submitted = group.members.some((id) => snapshots.get(id)?.kind === 'modal_submit');
    if (submitted) return 'sending';
    return group.cancelled ? 'cancelled' : 'modal';
  }
  return 'sending';
}

function groupNodes(group) {
  const ctx = renderContext();
  const header = group.header;
  const list = groupMessages(group);
  const nodes = list.length
    ? list.map((m, i) => renderMessage(m, ctx, { header: i === 0 ? header : null }))
    : [renderPending(header, ctx, pendingState(group))];
  // A button press or form that went unanswered shows under the conversation, as in Discord.
  for (const id of group.members.slice(1)) {
    const s = snapshots.get(id);
    if (s && !s.ack && s.state === 'expired') nodes.push(el('div', { class: 'status-line expired loose' }, [tr(ui.lang, 'status.noResponse')]));
  }
  for (const node of nodes) node.dataset.group = group.root;
  return nodes;
}

function renderGroup(root) {
  const group = groups.get(root);
  if (!group || group.channelId !== ui.channelId) return;
  const log = $('log');
  const old = [...log.querySelectorAll(`[data-group="${root}"]`)];
  const fresh = groupNodes(group);
  if (old.length) {
    old[0].before(...fresh);
    for (const node of old) node.remove();
  } else {
    log.append(...fresh);
  }
  $('welcome').hidden = log.children.length > 0;
}

/**
 * Like Discord, the view follows new messages while it is at the bottom. Components render and
 * images load after insertion, so follow size changes rather than insertions.
 */
let pinned = true;
let autoTop = 0;
function followBottom() {
  const scroller = $('scroller');
  scroller.addEventListener('scroll', () => {
    // Only the reader scrolling up unpins; growth after our own scroll does not.
    if (scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80) pinned = true;
    else if (scroller.scrollTop < autoTop - 2) pinned = false;
  });
  new ResizeObserver(() => {
    if (pinned) toBottom();
  }).observe($('log'));
}

function toBottom() {
  pinned = true;
  const scroller = $('scroller');
  scroller.scrollTop = scroller.scrollHeight;
  autoTop = scroller.scrollTop;
}

function renderAll() {
  $('log').replaceChildren();
  for (const group of groups.values()) if (group.channelId === ui.channelId) renderGroup(group.root);
  $('welcome').hidden = $('log').children.length > 0;
  toBottom();
}

// ─── Actions ────────────────────────────────────────────────────────────────────────────────

async function sendCommand(entry, values) {
  const body = {
    commandName: entry.command.name,
    ...(entry.group ? { subcommandGroup: entry.group.name } : {}),
    ...(entry.sub ? { subcommand: entry.sub.name } : {}),
    options: values,
    channelId: ui.channelId,
    ...who(),
  };
  const snapshot = await api('/api/commands', body);
  toBottom();
  const actor = actorInfo();
  const shown = Object.entries(values).map(([name, value]) => {
    const option = entry.options.find((o) => o.name === name);
    const choice = option?.choices?.find((c) => String(c.value) === String(value));
    const channel = ui.info.channels.find((c) => c.id === value);
    const label = choice ? localized(choice, 'name', locale()) : channel ? `#${channel.name}` : String(value);
    return `${option ? localized(option, 'name', locale()) : name}: ${label}`;
  });
  track(snapshot, snapshot.id, {
    author: actor.displayName,
    avatar: actor.avatar,
    command: `/${entryName(entry, locale())}`,
    invocation: [`/${entryName(entry, locale())}`, ...shown].join('  '),
    at: Date.now(),
    channelId: ui.channelId,
  });
}

async function pressButton(message, customId, button) {
  const root = messageRoot.get(message.id);
  button.setAttribute('data-busy', '');
  try {
    const snapshot = await api('/api/press', { messageId: message.id, customId, ...who() });
    busyButtons.set(snapshot.id, button);
    track(snapshot, root);
  } catch (error) {
    button.removeAttribute('data-busy');
    showToast(error.message);
  }
}

function showToast(text) {
  const box = $('composer-error');
  box.textContent = text;
  box.hidden = false;
}

// ─── Modals ─────────────────────────────────────────────────────────────────────────────────

function textInputs(components) {
  const out = [];
  for (const c of components ?? []) {
    if (c.type === 18 && c.component?.type === 4) out.push({ ...c.component, label: c.label, description: c.description });
    else if (c.type === 1) for (const inner of c.components ?? []) if (inner.type === 4) out.push(inner);
  }
  return out;
}

async function openModal(snapshot, root) {
  modalsShown.add(snapshot.id);
  const modal = el('discord-modal', {
    'modal-id': `modal-${snapshot.id}`,
    'modal-title': snapshot.modal.title,
    author: ui.info.bot.username,
    avatar: ui.info.bot.avatar,
    'data-testid': 'modal',
  });
  for (const input of textInputs(snapshot.modal.components)) {
    if (input.description) modal.append(el('p', { class: 'modal-description' }, [input.description]));
    modal.append(
      el('discord-input-text', {
        type: input.style === 2 ? 'paragraph' : 'short',
        label: input.label ?? input.custom_id,
        required: input.required !== false,
        'min-length': input.min_length,
        'max-length': input.max_length ?? 4000,
        placeholder: input.placeholder,
        'default-value': input.value,
        'data-custom-id': input.custom_id,
      }),
    );
  }
  let submitted = false;
  modal.submitForm = () => {
    submitted = true;
    const values = {};
    for (const field of modal.querySelectorAll('discord-input-text')) {
      const control = field.shadowRoot?.querySelector('input, textarea');
      values[field.dataset.customId] = control?.value ?? '';
    }
    api('/api/modal', { interactionId: snapshot.id, values, ...who() })
      .then((s) => track(s, root))
      .catch((error) => showToast(error.message));
  };
  modal.closeForm = () => {
    if (!submitted) {
      const group = groups.get(root);
      if (group) group.cancelled = true;
      renderGroup(root);
    }
    modal.remove();
  };
  $('modal-host').append(modal);
  await modal.updateComplete;
  const dialog = modal.shadowRoot.querySelector('dialog');
  dialog.showModal();
  modal.shadowRoot.querySelector('.discord-modal-box').style.display = 'flex';
  await Promise.all([...modal.querySelectorAll('discord-input-text')].map((f) => f.updateComplete));
  modal.querySelector('discord-input-text')?.shadowRoot?.querySelector('input, textarea')?.focus();
}

// ─── Chrome: channels, actor, language, notes ───────────────────────────────────────────────

function renderChrome() {
  const info = ui.info;
  const lang = ui.lang;
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = tr(lang, node.dataset.i18n);
  $('server-name').textContent = info.guild.name;
  $('server-icon').title = info.guild.name;
  $('server-icon').textContent = info.guild.name.split(/\s+/).map((w) => w[0]?.toUpperCase() ?? '').join('').slice(0, 3);

  const list = $('channel-list');
  list.replaceChildren(el('div', { class: 'category' }, [info.categories[0]?.name ?? tr(lang, 'channels.text')]));
  for (const channel of info.channels) {
    const item = el('button', { type: 'button', role: 'listitem', class: `channel${channel.id === ui.channelId ? ' active' : ''}`, 'data-channel': channel.name }, [
      channel.type === 5 ? announcementIcon() : el('span', { class: 'hash' }, ['#']),
      channel.name,
    ]);
    item.addEventListener('click', () => {
      ui.channelId = channel.id;
      renderChrome();
      renderAll();
      composer.refresh();
    });
    list.append(item);
  }
  const channel = info.channels.find((c) => c.id === ui.channelId);
  $('chat-title').textContent = channel?.name ?? '';
  $('chat-topic').textContent = info.guild.name;

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
  const status = $('bot-status');
  status.textContent = tr(lang, ui.botRunning ? 'status.botUp' : 'status.botDown');
  status.dataset.up = String(ui.botRunning);

  const welcome = $('welcome');
  welcome.replaceChildren(
    el('div', { class: 'welcome-icon' }, ['#']),
    el('h1', {}, [tr(lang, 'welcome.title', { channel: channel?.name ?? '' })]),
    el('p', {}, [tr(lang, 'welcome.body')]),
    el('p', { class: 'welcome-try' }, [`${tr(lang, 'welcome.try')}: `, ...['feed list', 'feed posts', 'stats', 'feed create'].map((k) => suggestion(k))]),
  );
  renderNotes();
}

/** Discord's megaphone for announcement channels (no emoji font needed). */
function announcementIcon() {
  const span = el('span', { class: 'hash' });
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', 'M3 10v4a1 1 0 0 0 1 1h2l5 4V5L6 9H4a1 1 0 0 0-1 1Zm10-3.5v11a6 6 0 0 0 0-11ZM13 3v2.1a8 8 0 0 1 0 13.8V21a10 10 0 0 0 0-18Z');
  svg.append(path);
  span.append(svg);
  return span;
}

function suggestion(key) {
  const entry = composer.entries().find((e) => e.key === key);
  if (!entry) return '';
  const chip = el('button', { type: 'button', class: 'suggestion' }, [`/${entryName(entry, locale())}`]);
  chip.addEventListener('click', () => composer.select(entry));
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

// ─── Events ─────────────────────────────────────────────────────────────────────────────────

function connectEvents() {
  const source = new EventSource('/api/events');
  source.addEventListener('hello', (event) => {
    ui.botRunning = JSON.parse(event.data).botRunning;
    $('app').dataset.connected = 'true';
    renderChrome();
    // Catch up on whatever changed while disconnected.
    for (const id of rootOf.keys()) void api(`/api/interactions/${id}`).then(absorb).catch(() => undefined);
  });
  source.addEventListener('bot', (event) => {
    ui.botRunning = JSON.parse(event.data).botRunning;
    renderChrome();
  });
  source.addEventListener('interaction', (event) => absorb(JSON.parse(event.data)));
  source.addEventListener('message', (event) => {
    const { action, message } = JSON.parse(event.data);
    if (action === 'delete') deletedMessages.add(message.id);
    else keepMessage(message);
    const root = messageRoot.get(message.id);
    if (root !== undefined) renderGroup(root);
  });
  source.onerror = () => {
    $('app').dataset.connected = 'false';
  };
}

// ─── Start ──────────────────────────────────────────────────────────────────────────────────

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
    channelName: ui.info.channels.find((c) => c.id === ui.channelId)?.name ?? '',
  }),
  autocomplete: async (entry, values, focused) => {
    const body = {
      commandName: entry.command.name,
      ...(entry.group ? { subcommandGroup: entry.group.name } : {}),
      ...(entry.sub ? { subcommand: entry.sub.name } : {}),
      options: values,
      focused,
      channelId: ui.channelId,
      ...who(),
    };
    return (await api('/api/autocomplete', body)).choices;
  },
  submit: sendCommand,
});

async function start() {
  ui.info = await api('/api/state');
  ui.botRunning = ui.info.bot.running;
  const params = new URLSearchParams(window.location.search);
  if (params.get('lang') === 'es') ui.lang = 'es';
  ui.channelId = ui.info.channels[0]?.id ?? '';
  for (const b of document.querySelectorAll('[data-actor]')) {
    b.addEventListener('click', () => {
      ui.actor = b.dataset.actor;
      renderChrome();
      composer.clear(false);
    });
  }
  for (const b of document.querySelectorAll('[data-lang]')) {
    b.addEventListener('click', () => {
      ui.lang = b.dataset.lang;
      renderChrome();
      renderAll();
      composer.refresh();
    });
  }
  renderChrome();
  composer.refresh();
  followBottom();
  connectEvents();
  await customElements.whenDefined('discord-message');
  setInterval(() => refreshTimes(document, ui.lang), 15_000);
  $('app').dataset.ready = 'true';
}

start().catch((error) => {
  document.body.prepend(el('pre', { class: 'fatal' }, [`The playground could not start: ${error.message}`]));
});
