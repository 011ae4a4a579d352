/**
 * The guilds, users and answers of the end-to-end stories, with no test runner in them: the e2e
 * files (through story-kit.ts) and the storm (test/storm, a plain program) share them.
 */
import type { APIMessage } from 'discord-api-types/v10';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, MEMBER_PERMISSIONS, MEMBER_USER_ID } from '@feedbot/playground';
import { DEFAULT_EVERYONE_PERMISSIONS, fixedSnowflake, type ActorOverrides, type EmulatedGuild, type InteractionSnapshot } from '@feedbot/discord-emulator';
import { langFor, translator, type Lang, type Translator } from '../../src/i18n/index.js';

export const LANGS = ['en', 'es'] as const satisfies readonly Lang[];
export const LOCALE: Record<Lang, string> = { en: 'en-US', es: 'es-ES' };
export const TRANSPORTS = ['gateway', 'http'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** A member trusted with feeds through a feed-manager role (no Manage Server). */
export const CREW_USER_ID = '1400000000000000013';

/** A guild a story owns: #news and #media for feeds, #audit for the audit trail, #doomed to delete. */
export interface StoryGuild {
  id: string;
  lang: Lang;
  locale: string;
  t: Translator;
  channels: { news: string; media: string; audit: string; doomed: string };
  adminRoleId: string;
  crewRoleId: string;
  guild: EmulatedGuild;
}

/**
 * Guild `n` (1, 2…) of a stack, in `lang`: its ids are fixed, so a failure names the same ids every run.
 * `shiftMs` moves its ids' timestamp: every `n` alone gives an even one, hence shard 0 of 2
 * ((id >> 22) % shards); a story across shard processes shifts some by 1 ms.
 */
export function storyGuild(n: number, lang: Lang, name: string, shiftMs = 0): StoryGuild {
  const ms = 300_000_000_000 + n * 1000 + shiftMs;
  const id = fixedSnowflake(ms, 0);
  const [category, news, media, audit, doomed] = [1, 2, 3, 4, 5].map((low) => fixedSnowflake(ms, low)) as [string, string, string, string, string];
  const adminRoleId = fixedSnowflake(ms, 100);
  const crewRoleId = fixedSnowflake(ms, 101);
  const text = (channelId: string, channelName: string, position: number) => ({ id: channelId, name: channelName, type: 0, parentId: category, position });
  const guild: EmulatedGuild = {
    id,
    name,
    ownerId: ADMIN_USER_ID,
    // #news first: interactions happen there by default, so #audit holds nothing but the audit posts.
    channels: [{ id: category, name: 'Feeds', type: 4, position: 0 }, text(news, 'news', 0), text(media, 'media', 1), text(audit, 'audit', 2), text(doomed, 'doomed', 3)],
    roles: [
      { id, name: '@everyone', permissions: DEFAULT_EVERYONE_PERMISSIONS, position: 0 },
      { id: adminRoleId, name: 'Admin', permissions: ADMIN_PERMISSIONS, position: 2 },
      { id: crewRoleId, name: 'Feed crew', permissions: '0', position: 1 },
    ],
    members: [
      { userId: ADMIN_USER_ID, username: 'ana_admin', roles: [adminRoleId] },
      { userId: CREW_USER_ID, username: 'cris_crew', roles: [crewRoleId] },
      { userId: MEMBER_USER_ID, username: 'max_member' },
    ],
  };
  return { id, lang, locale: LOCALE[lang], t: translator(langFor(LOCALE[lang])), channels: { news, media, audit, doomed }, adminRoleId, crewRoleId, guild };
}

/** Who acts, in the story's guild and language. */
export function actor(g: StoryGuild, who: 'admin' | 'crew' | 'member'): ActorOverrides & { guildId: string } {
  const base = { guildId: g.id, locale: g.locale };
  if (who === 'admin') return { ...base, userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS, roles: [g.adminRoleId] };
  if (who === 'crew') return { ...base, userId: CREW_USER_ID, permissions: MEMBER_PERMISSIONS, roles: [g.crewRoleId] };
  return { ...base, userId: MEMBER_USER_ID, permissions: MEMBER_PERMISSIONS, roles: [] };
}

/**
 * Runs a story in both languages at once, each in its own guilds; waits for both, then fails
 * with the first failure, named by its language.
 */
export async function inEachLanguage(story: (lang: Lang) => Promise<void>): Promise<void> {
  const results = await Promise.allSettled(LANGS.map((lang) => story(lang)));
  for (const [i, result] of results.entries()) {
    if (result.status === 'fulfilled') continue;
    const error: unknown = result.reason;
    if (error instanceof Error) error.message = `[${LANGS[i]}] ${error.message}`;
    throw error;
  }
}

export const messagesOf = (s: InteractionSnapshot): APIMessage[] => [...(s.original && !s.originalDeleted ? [s.original] : []), ...s.followUps];

export function lastMessage(s: InteractionSnapshot): APIMessage {
  const m = messagesOf(s).at(-1);
  if (!m) throw new Error(`no message for interaction ${s.id} (${s.state}): ${JSON.stringify(s.errors)}`);
  return m;
}

export const text = (m: APIMessage | undefined): string => JSON.stringify({ content: m?.content, embeds: m?.embeds });

/** What a reader sees of markdown text: Discord shows a backslash before ASCII punctuation as that character alone. */
export const readable = (markdown: string | undefined): string | undefined => markdown?.replace(/\\([!-/:-@[-`{-~])/g, '$1');

/** What a story waits to see as an interaction's last message before it asserts on it. */
export type Expected = (m: APIMessage) => boolean;

/** The first embed has one of these titles: a batch's report, complete or not, then the story asserts which. */
export const titled =
  (...titles: string[]): Expected =>
  (m) =>
    titles.includes(m.embeds[0]?.title ?? '');

/** Discord's "thinking…" placeholder of a deferred reply (MessageFlags.Loading). */
const LOADING = 1 << 7;

/** Any answer to a command: a message that is not the "thinking…" placeholder. */
export const answered: Expected = (m) => ((m.flags ?? 0) & LOADING) === 0;

/** What a press or a pick answered (pressAnswer, pickFor): the message and the callback type that acknowledged it. */
export interface Answer {
  message: APIMessage;
  ack: number | undefined;
}

/** How often messageWhen looks at the emulator's state. */
export const POLL_MS = 25;

/**
 * The interaction's last message once `expected` holds for it, polled from the emulator's state
 * until `timeoutMs` passes. An answer may be edited several times: a batch (bulk delete, import)
 * shows its progress at once and its report only when the calls are done, so a press "settles"
 * (waitForFinal: 100 ms without an edit) at the progress on a loaded machine. At the deadline, or
 * once the interaction expired unanswered, it fails with the last message seen.
 */
export async function messageWhen(
  emulator: { snapshotOf(id: string): InteractionSnapshot },
  interactionId: string,
  expected: Expected,
  opts: { timeoutMs?: number; what?: string } = {},
): Promise<APIMessage> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = emulator.snapshotOf(interactionId);
    const last = messagesOf(s).at(-1);
    if (last && expected(last)) return last;
    const expired = s.state === 'expired' && !s.ack;
    if (expired || Date.now() >= deadline) {
      const why = expired ? 'the interaction expired unanswered' : `not seen within ${timeoutMs} ms`;
      throw new Error(`interaction ${s.id}: ${opts.what ?? 'the expected message'} ${why}; last seen (${s.state}): ${last ? text(last) : 'no message'}; errors: ${JSON.stringify(s.errors)}`);
    }
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
  }
}
