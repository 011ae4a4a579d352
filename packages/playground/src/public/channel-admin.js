/* global document, window */
/**
 * Managing the demo server's channels as its owner does in Discord: the + beside the category
 * creates a channel, a channel's context menu (right click) deletes it. The emulator tells the
 * bot (CHANNEL_CREATE / CHANNEL_DELETE), so what feedbot does about a deleted channel shows.
 */
import { api, explain } from './api.js';
import { openDialog } from './dialog.js';
import { $, el, icon } from './dom.js';
import { tr } from './i18n.js';
import { actorInfo, ui, who } from './state.js';

/** Set by the page at start: what to do once the server's channels changed (`focus`: a channel to open). */
const deps = { onChanged: async () => undefined };

export function setChannelAdminDeps(given) {
  Object.assign(deps, given);
}

/** Only the server's owner (the demo's admin) manages its channels here. */
export const canManageChannels = () => actorInfo().userId === ui.info.guild.ownerId;

/** Discord's client writes text channel names in lower case, with dashes for spaces. */
export const channelName = (typed) => typed.trim().toLowerCase().replace(/\s+/g, '-').slice(0, 100);

async function change(call) {
  try {
    return await call();
  } catch (error) {
    throw new Error(tr(ui.lang, 'channels.failed', { error: explain(error, ui.lang) }));
  }
}

function typeChoice(type, checked) {
  const lang = ui.lang;
  const key = type === 5 ? 'announcement' : 'text';
  return el('label', { class: 'channel-type' }, [
    el('input', { type: 'radio', name: 'channel-type', value: String(type), checked }),
    el('span', { class: 'hash' }, [type === 5 ? icon('announcement', 20) : '#']),
    el('span', {}, [el('strong', {}, [tr(lang, `channels.type.${key}`)]), el('small', {}, [tr(lang, `channels.type.${key}.hint`)])]),
  ]);
}

export function openCreateChannel() {
  const lang = ui.lang;
  const name = el('input', { type: 'text', maxlength: 100, placeholder: tr(lang, 'channels.namePlaceholder'), 'data-testid': 'channel-name' });
  const types = el('div', { class: 'channel-types', role: 'radiogroup' }, [typeChoice(0, true), typeChoice(5, false)]);
  openDialog({
    host: $('modal-host'),
    lang,
    title: tr(lang, 'channels.create'),
    subtitle: ui.info.categories[0] ? tr(lang, 'channels.createIn', { category: ui.info.categories[0].name }) : undefined,
    testId: 'create-channel',
    confirmLabel: tr(lang, 'channels.create'),
    body: [
      el('div', { class: 'modal-field' }, [el('span', { class: 'modal-label' }, [tr(lang, 'channels.type')]), types]),
      el('label', { class: 'modal-field' }, [el('span', { class: 'modal-label' }, [tr(lang, 'channels.name')]), el('span', { class: 'channel-name-input' }, ['#', name])]),
    ],
    canConfirm: () => channelName(name.value) !== '',
    onConfirm: async () => {
      const type = Number(types.querySelector('input:checked')?.value ?? 0);
      const channel = await change(() => api('/api/channels', { name: channelName(name.value), type, ...who() }));
      await deps.onChanged(channel.id);
    },
  });
  name.focus();
}

function confirmDelete(channel) {
  const lang = ui.lang;
  const [before, after] = tr(lang, 'channels.deleteConfirm').split('{name}');
  openDialog({
    host: $('modal-host'),
    lang,
    title: tr(lang, 'channels.delete'),
    testId: 'delete-channel',
    danger: true,
    confirmLabel: tr(lang, 'channels.delete'),
    body: [el('p', { class: 'dialog-text' }, [before, el('strong', {}, [`#${channel.name}`]), after])],
    onConfirm: async () => {
      await change(() => api(`/api/channels/${channel.id}`, who(), 'DELETE'));
      await deps.onChanged();
    },
  });
}

function closeMenu() {
  document.querySelector('.context-menu')?.remove();
}

/** The context menu of a channel in the list, where the pointer is. */
export function openChannelMenu(event, channel) {
  if (!canManageChannels()) return;
  event.preventDefault();
  closeMenu();
  const remove = el('button', { type: 'button', class: 'context-item danger', 'data-testid': 'channel-menu-delete' }, [tr(ui.lang, 'channels.delete'), icon('trash', 18)]);
  remove.addEventListener('click', () => {
    closeMenu();
    confirmDelete(channel);
  });
  const menu = el('div', { class: 'context-menu', role: 'menu', 'data-testid': 'channel-menu' }, [remove]);
  menu.style.left = `${Math.min(event.clientX, window.innerWidth - 200)}px`;
  menu.style.top = `${Math.min(event.clientY, window.innerHeight - 60)}px`;
  document.body.append(menu);
  const dismiss = (e) => {
    if (e.type === 'keydown' && e.key !== 'Escape') return;
    if (e.type === 'mousedown' && menu.contains(e.target)) return;
    closeMenu();
    document.removeEventListener('mousedown', dismiss, true);
    document.removeEventListener('keydown', dismiss, true);
  };
  document.addEventListener('mousedown', dismiss, true);
  document.addEventListener('keydown', dismiss, true);
  remove.focus();
}
