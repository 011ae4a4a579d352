/* global document, window */
/**
 * A message's context menu, as Discord's client shows it on a right click (or from the message's
 * "⋯" button, for keyboard and touch users): an "Apps" item whose submenu lists the application's
 * message commands (type 3) the acting user may use, named in the client's language
 * (name_localizations). Choosing one runs it on that message.
 *
 * Keyboard: the menu opens with "Apps" focused; →, Enter or Space opens its submenu, ↑/↓ move in
 * it, ← goes back, Enter runs the command, Escape closes.
 */
import { el } from './dom.js';
import { localized, tr } from './i18n.js';
import { actorInfo, locale, ui } from './state.js';

/** Set by the page at start: what running a command on a message does. */
const deps = { run: async () => undefined };

export function setMessageMenuDeps(given) {
  Object.assign(deps, given);
}

/** Discord lists a message command only for members with its default_member_permissions. */
function usable(command, permissions) {
  const needed = command.default_member_permissions;
  if (needed === null || needed === undefined) return true;
  const required = BigInt(needed);
  return (BigInt(permissions) & required) === required;
}

export const messageCommands = () => ui.info.commands.filter((c) => c.type === 3 && usable(c, actorInfo().permissions));

let current = null;

export function closeMessageMenu({ focusBack = false } = {}) {
  if (!current) return;
  const { menu, dismiss, opener } = current;
  current = null;
  menu.remove();
  document.removeEventListener('mousedown', dismiss, true);
  window.removeEventListener('blur', dismiss);
  if (focusBack) opener?.focus();
}

/** Moves the focus among `items` (the menu's buttons) with ↑/↓, Home and End. */
function roving(event, items) {
  const at = items.indexOf(document.activeElement);
  const next = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[event.key];
  if (next === undefined || !items.length) return false;
  event.preventDefault();
  items[(next + items.length) % items.length].focus();
  return true;
}

/** Opens the menu of `message`: at `where.x/y` (a right click) or under `where.anchor` (its "⋯" button). */
export function openMessageMenu(message, where) {
  closeMessageMenu();
  const lang = ui.lang;
  const commands = messageCommands();
  const apps = el('button', { type: 'button', role: 'menuitem', class: 'context-item', 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'data-testid': 'message-menu-apps' }, [
    tr(lang, 'menu.apps'),
    el('span', { class: 'context-arrow', 'aria-hidden': 'true' }, ['›']),
  ]);
  const items = commands.map((command) => {
    const item = el('button', { type: 'button', role: 'menuitem', class: 'context-item', 'data-command': command.name }, [localized(command, 'name', locale())]);
    item.addEventListener('click', () => {
      closeMessageMenu();
      void deps.run(message, command);
    });
    return item;
  });
  const submenu = el('div', { class: 'context-menu context-submenu', role: 'menu', 'aria-label': tr(lang, 'menu.apps'), hidden: true }, items.length ? items : [el('div', { class: 'context-empty' }, [tr(lang, 'menu.noApps')])]);
  const menu = el('div', { class: 'context-menu message-menu', role: 'menu', 'aria-label': tr(lang, 'menu.message'), 'data-testid': 'message-menu' }, [apps, submenu]);

  const openSub = (focusFirst) => {
    submenu.hidden = false;
    apps.setAttribute('aria-expanded', 'true');
    if (focusFirst) items[0]?.focus();
  };
  const closeSub = () => {
    submenu.hidden = true;
    apps.setAttribute('aria-expanded', 'false');
    apps.focus();
  };
  apps.addEventListener('mouseenter', () => openSub(false));
  apps.addEventListener('click', () => openSub(true));
  menu.addEventListener('keydown', (event) => {
    const inSub = submenu.contains(document.activeElement);
    if (event.key === 'Escape') {
      event.preventDefault();
      if (inSub) closeSub();
      else closeMessageMenu({ focusBack: true });
    } else if (!inSub && (event.key === 'ArrowRight' || event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      openSub(true);
    } else if (inSub && event.key === 'ArrowLeft') {
      event.preventDefault();
      closeSub();
    } else if (inSub) {
      roving(event, items);
    } else if (event.key === 'Tab') {
      closeMessageMenu();
    }
  });

  const rect = where.anchor?.getBoundingClientRect();
  const x = rect ? rect.right - 200 : where.x;
  const y = rect ? rect.bottom + 4 : where.y;
  menu.style.left = `${Math.max(8, Math.min(x, window.innerWidth - 420))}px`;
  menu.style.top = `${Math.max(8, Math.min(y, window.innerHeight - 120))}px`;
  document.body.append(menu);
  const dismiss = (event) => {
    if (event.type === 'mousedown' && menu.contains(event.target)) return;
    closeMessageMenu();
  };
  document.addEventListener('mousedown', dismiss, true);
  window.addEventListener('blur', dismiss);
  current = { menu, dismiss, opener: where.anchor };
  apps.focus();
}

/** The "⋯" button drawn on a message, opening its menu (keyboard and touch users have no right click). */
export function moreButton(message, lang, open) {
  const button = el('button', { type: 'button', class: 'message-more', 'aria-label': tr(lang, 'menu.more'), 'aria-haspopup': 'menu', title: tr(lang, 'menu.more') }, ['⋯']);
  button.addEventListener('click', (event) => {
    event.stopPropagation();
    open(message, { anchor: button });
  });
  return button;
}
