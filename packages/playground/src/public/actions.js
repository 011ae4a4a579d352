/* global File */
/**
 * What the visitor does through the playground API, as the acting user: send a command (with the
 * files it attaches), ask for autocomplete suggestions, press a button, pick in a select, fill in
 * a bot's form, run a message command (right-click → Apps) on a message.
 */
import { api, explain, upload } from './api.js';
import { T, entryName } from './commands.js';
import { cancelForm, track } from './conversations.js';
import { $ } from './dom.js';
import { localized } from './i18n.js';
import { openModal } from './modal.js';
import { toBottom } from './scroll.js';
import { actorInfo, channelById, locale, store, ui, who } from './state.js';

export function showToast(text) {
  const box = $('composer-error');
  box.textContent = text;
  box.hidden = false;
}

/** The command (and sub-command) an API call is about, with its options, in the current channel. */
function commandBody(entry, values) {
  return {
    commandName: entry.command.name,
    ...(entry.group ? { subcommandGroup: entry.group.name } : {}),
    ...(entry.sub ? { subcommand: entry.sub.name } : {}),
    options: values,
    channelId: ui.channelId,
    ...who(),
  };
}

/** "name: value" for each option sent, in the client's language, for the pending line. */
function shownOptions(entry, values, files) {
  return Object.entries(values).map(([name, value]) => {
    const option = entry.options.find((o) => o.name === name);
    const choice = option?.choices?.find((c) => String(c.value) === String(value));
    const channel = channelById(value);
    const role = option?.type === T.ROLE ? ui.info.roles.find((r) => r.id === value) : undefined;
    const label = files[name] ?? (choice ? localized(choice, 'name', locale()) : channel ? `#${channel.name}` : role ? `@${role.name.replace(/^@/, '')}` : String(value));
    return `${option ? localized(option, 'name', locale()) : name}: ${label}`;
  });
}

/** Uploads the picked files; the options then carry the attachments' ids, as Discord's do. */
async function withUploads(values) {
  const sent = { ...values };
  const files = {};
  for (const [name, value] of Object.entries(values)) {
    if (!(value instanceof File)) continue;
    sent[name] = (await upload(value)).id;
    files[name] = value.name;
  }
  return { sent, files };
}

export async function sendCommand(entry, values) {
  let snapshot;
  let shown;
  try {
    const { sent, files } = await withUploads(values);
    shown = shownOptions(entry, sent, files);
    snapshot = await api('/api/commands', commandBody(entry, sent));
  } catch (error) {
    throw new Error(explain(error, ui.lang));
  }
  toBottom();
  const actor = actorInfo();
  const command = `/${entryName(entry, locale())}`;
  track(snapshot, snapshot.id, {
    author: actor.displayName,
    avatar: actor.avatar,
    userId: actor.userId,
    command,
    invocation: [command, ...shown].join('  '),
    at: Date.now(),
    channelId: ui.channelId,
  });
}

export async function askAutocomplete(entry, values, focused) {
  return (await api('/api/autocomplete', { ...commandBody(entry, values), focused })).choices;
}

/** A press or pick on a channel post (no conversation of the page's) starts a conversation of its own. */
function pressHeader(message, label) {
  const actor = actorInfo();
  return { author: actor.displayName, avatar: actor.avatar, userId: actor.userId, command: label, invocation: label, at: Date.now(), channelId: message.channel_id };
}

/** Sends a component interaction on `message`; `node` shows busy until the bot acknowledges it. */
async function onComponent(message, node, label, call) {
  const root = store.messageRoot.get(message.id);
  node.setAttribute('data-busy', '');
  try {
    const snapshot = await call();
    store.busyButtons.set(snapshot.id, node);
    store.following.add(snapshot.id);
    if (root === undefined) track(snapshot, snapshot.id, pressHeader(message, label));
    else track(snapshot, root);
  } catch (error) {
    node.removeAttribute('data-busy');
    showToast(explain(error, ui.lang));
  }
}

export function pressButton(message, customId, button) {
  return onComponent(message, button, button.textContent.trim(), () => api('/api/press', { messageId: message.id, customId, ...who() }));
}

/** The picks of select `customId` on `message`, sent as Discord's client sends them. */
export function pickInSelect(message, customId, values, node, label) {
  return onComponent(message, node, label, () => api('/api/select', { messageId: message.id, customId, values, ...who() }));
}

/** Right-click → Apps → `command` on `message`: a conversation of its own, "<user> used <command>". */
export async function runMessageCommand(message, command) {
  const name = localized(command, 'name', locale());
  try {
    const snapshot = await api('/api/message-command', { messageId: message.id, commandName: command.name, ...who() });
    store.following.add(snapshot.id);
    const actor = actorInfo();
    track(snapshot, snapshot.id, { author: actor.displayName, avatar: actor.avatar, userId: actor.userId, command: name, invocation: name, at: Date.now(), channelId: message.channel_id });
  } catch (error) {
    showToast(explain(error, ui.lang));
  }
}

/** The form a bot answered `snapshot` with; what is sent joins the conversation `root`. */
export function showBotModal(snapshot, root) {
  store.modalsShown.add(snapshot.id);
  openModal({
    form: snapshot.modal,
    bot: ui.info.bot,
    lang: ui.lang,
    info: ui.info,
    host: $('modal-host'),
    onSubmit: (values) => {
      api('/api/modal', { interactionId: snapshot.id, values, ...who() })
        .then((s) => {
          store.following.add(s.id);
          track(s, root);
        })
        .catch((error) => showToast(explain(error, ui.lang)));
    },
    onCancel: () => cancelForm(root),
  });
}
