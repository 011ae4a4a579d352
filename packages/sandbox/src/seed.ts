/**
 * The deterministic demo data: a `server`-plan demo guild with a few feeds (one paused) and their
 * past posts, and a `free`-plan guild to show `plan_required`. Same seed and clock, same rows.
 * Seeding happens once per data folder: it is skipped when the demo guild already exists.
 */
import type { ContentKind, FeedState } from '@feedbot/feed-api-contract';
import { randomInt, seededRandom, type Clock } from './clock.js';
import { generatedPost } from './content.js';
import type { Plan } from './records.js';
import type { SandboxStore } from './store.js';

export const DEMO_GUILD_ID = '1100000000000000001';
/** A guild on the `free` plan: its key authenticates but gets 403 plan_required. */
export const DEMO_FREE_GUILD_ID = '1100000000000000002';
export const DEMO_CHANNEL_IDS = ['1100000000000000101', '1100000000000000102', '1100000000000000103'] as const;

interface SeedFeed {
  guildId: string;
  cuenta: string;
  canalId: string;
  tipos: ContentKind[];
  filtros: unknown[];
  estado: FeedState;
  posts: [min: number, max: number];
}

const SEED_SERVERS: { guildId: string; plan: Plan }[] = [
  { guildId: DEMO_GUILD_ID, plan: 'server' },
  { guildId: DEMO_FREE_GUILD_ID, plan: 'free' },
];

const [CH_NEWS, CH_MEDIA, CH_FOOD] = DEMO_CHANNEL_IDS;

const SEED_FEEDS: SeedFeed[] = [
  { guildId: DEMO_GUILD_ID, cuenta: 'nasa', canalId: CH_NEWS, tipos: ['post', 'reel'], filtros: [], estado: 'activo', posts: [10, 16] },
  {
    guildId: DEMO_GUILD_ID,
    cuenta: 'natgeo',
    canalId: CH_MEDIA,
    tipos: ['post', 'reel', 'story'],
    filtros: [{ palabra: 'oceano' }],
    estado: 'activo',
    posts: [8, 14],
  },
  { guildId: DEMO_GUILD_ID, cuenta: 'spacex', canalId: CH_NEWS, tipos: ['reel'], filtros: [], estado: 'pausado', posts: [3, 6] },
  {
    guildId: DEMO_GUILD_ID,
    cuenta: 'cocina.facil',
    canalId: CH_FOOD,
    tipos: ['post', 'story'],
    filtros: [{ excluir: 'publicidad' }, { soloConImagen: true }],
    estado: 'activo',
    posts: [5, 10],
  },
  { guildId: DEMO_FREE_GUILD_ID, cuenta: 'museo_local', canalId: '1100000000000000201', tipos: ['post'], filtros: [], estado: 'activo', posts: [2, 4] },
];

/** How far back seeded posts go. */
const HISTORY_MS = 10 * 86_400_000;

export interface SeedResult {
  seeded: boolean;
  feeds: number;
  posts: number;
}

export async function seedDemoData(store: SandboxStore, options: { seed: number; clock: Clock }): Promise<SeedResult> {
  if (await store.getServer(DEMO_GUILD_ID)) return { seeded: false, feeds: 0, posts: 0 };
  const random = seededRandom(options.seed);
  const now = options.clock.now();
  const nowIso = new Date(now).toISOString();
  let posts = 0;

  for (const server of SEED_SERVERS) await store.createServer(server.guildId, server.plan, nowIso);
  for (const spec of SEED_FEEDS) {
    const creado = new Date(now - HISTORY_MS - randomInt(random, 1, 72) * 3_600_000).toISOString();
    const result = await store.createFeed(
      spec.guildId,
      { cuenta: spec.cuenta, canalId: spec.canalId, tipos: spec.tipos, filtros: spec.filtros, estado: spec.estado, creado },
      Number.MAX_SAFE_INTEGER,
    );
    if (result.kind !== 'created') continue;
    const count = randomInt(random, spec.posts[0], spec.posts[1]);
    // Newest first: the first two land in the last six hours so "today" is rarely empty.
    for (let i = 0; i < count; i++) {
      const ago = i < 2 ? randomInt(random, 1, 6 * 60) * 60_000 : randomInt(random, 0, HISTORY_MS / 60_000) * 60_000;
      await store.insertPost(generatedPost(random, result.feed, now - ago));
      posts++;
    }
  }
  return { seeded: true, feeds: SEED_FEEDS.length, posts };
}
