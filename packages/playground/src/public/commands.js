/**
 * The bot's slash commands as the composer offers them: every runnable entry (a command, or each
 * of its sub-commands), its name in the client's language, and whether the acting user may see it.
 */
import { localized } from './i18n.js';

/** Application command option types. */
export const T = { SUB: 1, GROUP: 2, STRING: 3, INTEGER: 4, BOOLEAN: 5, USER: 6, CHANNEL: 7, ROLE: 8, MENTIONABLE: 9, NUMBER: 10, ATTACHMENT: 11 };

/** Every runnable entry: a command, or each of its sub-commands (and sub-commands of groups). */
export function commandEntries(commands) {
  const entries = [];
  for (const command of commands) {
    if ((command.type ?? 1) !== 1) continue;
    const opts = command.options ?? [];
    const subs = opts.filter((o) => o.type === T.SUB);
    const groups = opts.filter((o) => o.type === T.GROUP);
    if (!subs.length && !groups.length) entries.push({ command, chain: [command], options: opts });
    for (const sub of subs) entries.push({ command, sub, chain: [command, sub], options: sub.options ?? [] });
    for (const group of groups) {
      for (const sub of group.options ?? []) entries.push({ command, group, sub, chain: [command, group, sub], options: sub.options ?? [] });
    }
  }
  return entries.map((e) => ({ ...e, key: e.chain.map((c) => c.name).join(' ') }));
}

export function entryName(entry, locale) {
  return entry.chain.map((c) => localized(c, 'name', locale)).join(' ');
}

/** Discord hides a command from members who lack its default_member_permissions. */
export function visibleTo(entry, permissions) {
  const needed = entry.command.default_member_permissions;
  if (needed === null || needed === undefined) return true;
  const required = BigInt(needed);
  return (BigInt(permissions) & required) === required;
}
