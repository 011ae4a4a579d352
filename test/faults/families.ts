/**
 * The command families of the fault matrix: for each, the interaction a fault hits, what it sets
 * up first with a healthy API (a confirmation to press), the feed API requests it sends, the
 * write that must never be lost or doubled, and healthy answers to prove the bot still serves.
 * A new command is one entry here.
 */
import type { APIInteraction } from 'discord-api-types/v10';
import type { Interceptable } from 'undici';
import { GUILD_ID, autocomplete, buttonPress, chatInput, modalSubmit } from '../helpers/discord.js';
import { rl, sampleFeeds, sampleStats, type BotHarness } from '../helpers/bot.js';
import { EPHEMERAL } from './support.js';

export type Method = 'GET' | 'POST' | 'DELETE';

/** A feed API request, as the MockAgent sees it (path under the origin, query included). */
export interface ApiTarget {
  method: Method;
  path: string;
  /** The status and body of a healthy answer. */
  ok: { status: number; body: unknown };
}

export interface Family {
  /** As in test names and in docs/RELIABILITY.md. */
  id: string;
  /** Requests the faulted interaction sends to the feed API, in order; empty when none. */
  targets: ApiTarget[];
  /** Why the family sends no request (shown in the table instead of a result). */
  noRequestBecause?: string;
  /** Whether the successful answer is private. */
  privateAnswer: boolean;
  /** For a button: whether the message it sits on is ephemeral. */
  sourcePrivate?: boolean;
  /** Whether the answer is an autocomplete list or a modal rather than a message. */
  answer: 'message' | 'choices' | 'modal';
  /** Whether the interaction can be deferred (so a slow API reaches an edit of the reply). */
  defers: boolean;
  /** The write that must reach the API exactly once per interaction, if any. */
  write?: { method: Method; path: string };
  /** Whether the family reads the guild's key from the store. */
  readsKey: boolean;
  /** Whether the family writes the key store (set, remove). */
  writesKey: boolean;
  /** For a family that sends no request: makes its own slow step slower (so it defers). */
  slowDown?(h: BotHarness, ms: number): void;
  /** Acknowledges (defers) before any other work: if that fails, nothing else is done. */
  acknowledgesFirst?: boolean;
  /** Steps before the faulted interaction, against a healthy API. */
  prepare?(h: BotHarness, locale: string): Promise<void>;
  /** The faulted interaction. */
  interaction(h: BotHarness, locale: string): APIInteraction;
}

export const NEW_KEY = 'fbk_NewKeyFromTheDashboard_QX81';
const created = { id: 7, cuenta: 'nasa', canalId: '1300000000000000009', estado: 'activo', creado: '2026-11-21T10:00:00.000Z' };
/** A valid post of GET /feeds/{id}/posts. */
export const samplePost = {
  id: 'p1',
  tipo: 'post',
  caption: 'Caption',
  mediaUrl: 'https://127.0.0.1:9443/media/p1.svg',
  postUrl: 'https://social.example/p/p1',
  publicadoEn: '2026-11-21T09:00:00.000Z',
  publicadoDiscord: '2026-11-21T09:01:00.000Z',
};

const LIST: ApiTarget = { method: 'GET', path: '/v1/feeds', ok: { status: 200, body: sampleFeeds } };
const CREATE: ApiTarget = { method: 'POST', path: '/v1/feeds', ok: { status: 201, body: created } };
const DELETE: ApiTarget = { method: 'DELETE', path: '/v1/feeds/1', ok: { status: 200, body: { ok: true, mensaje: 'Feed 1 eliminado' } } };
const POSTS: ApiTarget = { method: 'GET', path: '/v1/feeds/1/posts?limite=10', ok: { status: 200, body: { posts: [samplePost] } } };
const STATS: ApiTarget = { method: 'GET', path: '/v1/stats', ok: { status: 200, body: sampleStats() } };
/** The key probe of /apikey set: read, then stats and a write of `{}` (400 = may write) together. */
const PROBE: ApiTarget[] = [
  { method: 'GET', path: '/v1/feeds', ok: { status: 200, body: { feeds: [], total: 0, plan: 'server' } } },
  { method: 'GET', path: '/v1/stats', ok: { status: 200, body: sampleStats({ servidor: GUILD_ID }) } },
  { method: 'POST', path: '/v1/feeds', ok: { status: 400, body: { error: { codigo: 'invalid', mensaje: 'cuenta is required' } } } },
];

const channel = { channel: { id: '1300000000000000009', name: 'space' } };

type Rows = { components: { custom_id: string }[] }[];

/** The latest confirmation's Delete or Cancel custom_id (from a reply, or from an edit after a deferral). */
function confirmationButton(h: BotHarness, which: 0 | 1): string {
  for (const call of [...h.discord.calls].reverse()) {
    const body = call.body as ({ data?: { components?: Rows } } & { components?: Rows }) | undefined;
    const rows = body?.data?.components ?? body?.components;
    const id = rows?.[0]?.components[which]?.custom_id;
    if (id?.startsWith('feed:delete:')) return id;
  }
  throw new Error('no delete confirmation was sent');
}

async function askToDelete(h: BotHarness, locale: string): Promise<void> {
  // /feed delete reads the list from the cache when it can.
  if (!(await h.client.cachedFeeds(GUILD_ID))) h.api.intercept({ path: LIST.path, method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
  await h.run(chatInput('feed', 'delete', { id: 1 }, { locale }));
}

const base = { readsKey: true, writesKey: false, answer: 'message', defers: true } as const;

export const FAMILIES: Family[] = [
  { ...base, id: '/feed list', targets: [LIST], privateAnswer: false, interaction: (_h, locale) => chatInput('feed', 'list', {}, { locale }) },
  {
    ...base,
    id: '/feed create',
    targets: [CREATE],
    privateAnswer: false,
    write: { method: 'POST', path: CREATE.path },
    interaction: (_h, locale) => chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post' }, { locale }),
  },
  { ...base, id: '/feed delete (asks)', targets: [LIST], privateAnswer: true, interaction: (_h, locale) => chatInput('feed', 'delete', { id: 1 }, { locale }) },
  {
    ...base,
    id: '/feed delete → Delete',
    targets: [DELETE],
    privateAnswer: true,
    sourcePrivate: true,
    write: { method: 'DELETE', path: DELETE.path },
    prepare: askToDelete,
    interaction: (h, locale) => buttonPress(confirmationButton(h, 0), { locale }, EPHEMERAL),
  },
  {
    ...base,
    id: '/feed delete → Cancel',
    targets: [],
    noRequestBecause: 'Cancel sends no request and reads no key',
    readsKey: false,
    defers: false,
    privateAnswer: true,
    sourcePrivate: true,
    prepare: askToDelete,
    interaction: (h, locale) => buttonPress(confirmationButton(h, 1), { locale }, EPHEMERAL),
  },
  { ...base, id: '/feed posts', targets: [POSTS], privateAnswer: false, interaction: (_h, locale) => chatInput('feed', 'posts', { id: 1 }, { locale }) },
  { ...base, id: '/stats', targets: [STATS], privateAnswer: false, interaction: (_h, locale) => chatInput('stats', undefined, {}, { locale }) },
  {
    ...base,
    id: '/apikey set (form)',
    targets: [],
    noRequestBecause: 'opening the form sends no request and reads no key',
    readsKey: false,
    defers: false,
    answer: 'modal',
    privateAnswer: true,
    interaction: (_h, locale) => chatInput('apikey', 'set', {}, { locale }),
  },
  {
    ...base,
    id: '/apikey set (submit)',
    targets: PROBE,
    writesKey: true,
    acknowledgesFirst: true,
    privateAnswer: true,
    interaction: (_h, locale) => modalSubmit('apikey:set', { key: NEW_KEY }, { locale }),
  },
  {
    ...base,
    id: '/apikey status',
    targets: [],
    noRequestBecause: 'reads the key store only',
    defers: false,
    privateAnswer: true,
    interaction: (_h, locale) => chatInput('apikey', 'status', {}, { locale }),
  },
  {
    ...base,
    id: '/apikey remove',
    targets: [],
    noRequestBecause: 'writes the key store only',
    writesKey: true,
    // A committed SQLite write (fsync) can outlast the deferral point.
    defers: true,
    slowDown(h, ms) {
      const remove = h.keys.delete.bind(h.keys);
      h.keys.delete = async (guildId) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return remove(guildId);
      };
    },
    privateAnswer: true,
    interaction: (_h, locale) => chatInput('apikey', 'remove', {}, { locale }),
  },
  {
    ...base,
    id: 'autocomplete (feed id)',
    targets: [LIST],
    answer: 'choices',
    defers: false,
    privateAnswer: true,
    interaction: (_h, locale) => autocomplete('feed', 'delete', { id: '' }, 'id', { locale }),
  },
];

export function family(id: string): Family {
  const found = FAMILIES.find((f) => f.id === id);
  if (!found) throw new Error(`no family ${id}`);
  return found;
}

/** Healthy answers for every request the family sends, `delayMs` late (to make the bot defer). */
export function answerHealthily(api: Interceptable, f: Family, delayMs = 0): void {
  for (const target of f.targets) {
    const scope = api.intercept({ path: target.path, method: target.method }).reply(target.ok.status, target.ok.body as object, { headers: rl() });
    if (delayMs > 0) scope.delay(delayMs);
  }
}

/** Runs the family's preparation and its interaction; resolves with the faulted interaction's payload. */
export async function runFamily(h: BotHarness, f: Family, locale: string, beforeInteraction?: () => void | Promise<void>): Promise<APIInteraction> {
  await f.prepare?.(h, locale);
  await beforeInteraction?.();
  const raw = f.interaction(h, locale);
  await h.run(raw);
  return raw;
}
