/**
 * What the store hands out and takes in: servers, keys, feeds, posts and statistics as plain
 * records with the API's field names.
 */
import type { ContentKind, FeedState, Scope } from '@feedbot/feed-api-contract';

export const PLANS = ['free', 'pro', 'server'] as const;
export type Plan = (typeof PLANS)[number];

export interface ServerRecord {
  guildId: string;
  plan: Plan;
  createdAt: string;
}

export interface KeyRecord {
  guildId: string;
  last4: string;
  scopes: Scope[];
  /** Requests per window for this key; null means the sandbox's configured limit. */
  rateLimit: number | null;
  createdAt: string;
}

/** What a valid key resolves to. */
export interface KeyIdentity extends KeyRecord {
  keyHash: string;
  plan: Plan;
}

export interface FeedRecord {
  id: number;
  guildId: string;
  cuenta: string;
  canalId: string;
  estado: FeedState;
  tipos: ContentKind[];
  filtros: unknown[];
  creado: string;
  ultimoPost: string | null;
}

export interface PostRecord {
  code: string;
  feedId: number;
  guildId: string;
  cuenta: string;
  tipo: ContentKind;
  caption: string;
  publicadoEn: string;
  publicadoDiscord: string;
}

export interface StatsRecord {
  feedsActivos: number;
  feedsPausados: number;
  postsHoy: number;
  postsEstaSemana: number;
  cuentaMasActiva: string | null;
  ultimaActividad: string | null;
}

/**
 * The cached reads, valid for one request: get them from `store.fresh()` when the request starts,
 * so that everything committed before it (by this process or another) is seen. Values are frozen.
 */
export interface FreshReads {
  keyByHash(keyHash: string): Promise<KeyIdentity | undefined>;
  feeds(guildId: string): Promise<readonly FeedRecord[]>;
}

export interface NewFeed {
  cuenta: string;
  canalId: string;
  tipos: ContentKind[];
  filtros: unknown[];
  creado: string;
  estado?: FeedState;
}

export type CreateFeedResult =
  | { kind: 'created'; feed: FeedRecord }
  | { kind: 'limit' }
  | { kind: 'duplicate' }
  | { kind: 'no_server' };
