/**
 * Shared data for the API client tests: valid bodies for every route, a hand-moved clock, and a
 * logger whose lines land in an array (to prove the key is never logged). The per-test agent and
 * client are vitest fixtures, in fixtures.ts.
 */
import { createLogger, type Logger } from '../../src/logger.js';

export const ORIGIN = 'https://api.feeds.test';
export const BASE_PATH = '/v1';
export const BASE_URL = `${ORIGIN}${BASE_PATH}`;
export const KEY = 'fk_live_S3cr3tKeyValue0123456789abcdef';
export const GUILD = '1100000000000000001';
export const AUTH = { apiKey: KEY, guildId: GUILD };

export const FEED_LIST = {
  feeds: [
    {
      id: 1,
      cuenta: 'nasa',
      canal: '1100000000000000002',
      estado: 'activo',
      tipos: ['post', 'reel'],
      filtros: 0,
      ultimoPost: '2026-11-21T12:00:00.000Z',
    },
  ],
  total: 1,
  plan: 'server',
};

export const CREATED = {
  id: 7,
  cuenta: 'nasa',
  canalId: '1100000000000000002',
  estado: 'activo',
  creado: '2026-11-21T12:00:00.000Z',
};

export const DELETED = { ok: true, mensaje: 'Feed 7 eliminado' };

export const POSTS = {
  posts: [
    {
      id: 'p1',
      tipo: 'post',
      caption: 'Hello',
      mediaUrl: 'https://cdn.example/p1.jpg',
      postUrl: 'https://social.example/p/p1',
      publicadoEn: '2026-11-21T11:00:00.000Z',
      publicadoDiscord: '2026-11-21T11:01:00.000Z',
    },
  ],
};

export const STATS = {
  servidor: GUILD,
  plan: 'server',
  feedsActivos: 3,
  feedsPausados: 1,
  postsHoy: 5,
  postsEstaSemana: 20,
  cuentaMasActiva: 'nasa',
  ultimaActividad: '2026-11-21T12:00:00.000Z',
};

export const NEW_FEED = { cuenta: 'nasa', canalId: '1100000000000000002', tipos: ['post' as const] };

/** Fixed wall clock (epoch ms) the tests move by hand. */
export class Clock {
  constructor(public ms = Date.UTC(2026, 10, 21, 12, 0, 0)) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
  /** Unix seconds `s` seconds from now, as the reset header carries it. */
  resetIn(s: number): string {
    return String(Math.floor(this.ms / 1000) + s);
  }
}

export function rateHeaders(remaining: number, reset: string): Record<string, string> {
  return { 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': reset };
}

export interface CapturedLog {
  logger: Logger;
  lines: string[];
}

export function captureLogger(): CapturedLog {
  const lines: string[] = [];
  const logger = createLogger({ name: 'api-test', level: 'trace', destination: { write: (s: string) => void lines.push(s) } });
  return { logger, lines };
}

/** Settles a promise into a value or the thrown error, for assertions on either. */
export async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

export async function rejection(p: Promise<unknown>): Promise<unknown> {
  const r = await settle(p);
  if (r.ok) throw new Error(`expected a rejection, got ${JSON.stringify(r.value)}`);
  return r.error;
}
