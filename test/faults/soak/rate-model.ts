/**
 * The feed API as the soak needs it: one persistent MockAgent interceptor answering every route
 * for every key, with the spec's rate limit modelled per key as the sandbox models it: 100
 * requests per 60-second window opened by the key's first request, `X-RateLimit-Remaining` and
 * `X-RateLimit-Reset` on every answer, 429 once spent. All on the soak's fake clock, so an hour
 * of windows passes in seconds.
 */
import type { Interceptable } from 'undici';
import { RATE_LIMIT_PER_MINUTE, RATE_LIMIT_WINDOW_MS } from '@feedbot/feed-api-contract';
import { sampleFeeds, sampleStats } from '../../helpers/bot.js';
import { samplePost } from '../families.js';

interface Window {
  start: number;
  used: number;
}

export interface ApiTally {
  requests: number;
  tooMany: number;
  byRoute: Record<string, number>;
}

function headerOf(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length - 1; i += 2) if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    return undefined;
  }
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}


/** The 2xx body of a route, by `METHOD path`. */
function bodyFor(method: string, path: string, guildId: string): { status: number; body: unknown } {
  if (method === 'GET' && path === '/v1/feeds') return { status: 200, body: sampleFeeds };
  if (method === 'GET' && path === '/v1/stats') return { status: 200, body: sampleStats({ servidor: guildId }) };
  if (method === 'GET' && path.startsWith('/v1/feeds/')) return { status: 200, body: { posts: [samplePost] } };
  if (method === 'POST') return { status: 201, body: { id: 9, cuenta: 'nasa', canalId: '1300000000000000009', estado: 'activo', creado: '2026-11-21T10:00:00.000Z' } };
  if (method === 'DELETE') return { status: 200, body: { ok: true, mensaje: 'Feed eliminado' } };
  return { status: 404, body: { error: 'not found' } };
}

/**
 * Installs the model on `api`. `guildOfKey` maps an API key to its guild (GET /stats names it).
 * One window per key, replaced when it ends: the model's memory is bounded by the keys.
 */
export function installRateLimitedApi(api: Interceptable, now: () => number, guildOfKey: (key: string) => string): ApiTally {
  const windows = new Map<string, Window>();
  const tally: ApiTally = { requests: 0, tooMany: 0, byRoute: {} };
  api
    .intercept({ path: () => true, method: () => true })
    .reply((opts) => {
      tally.requests += 1;
      const key = (headerOf(opts.headers, 'authorization') ?? '').replace(/^Bearer /, '');
      const t = now();
      // As the sandbox does: a window opens at a key's first request and lasts 60 s.
      let w = windows.get(key);
      if (!w || t >= w.start + RATE_LIMIT_WINDOW_MS) windows.set(key, (w = { start: t, used: 0 }));
      const reset = String(Math.ceil((w.start + RATE_LIMIT_WINDOW_MS) / 1000));
      const headers = { 'content-type': 'application/json', 'x-ratelimit-reset': reset };
      if (w.used >= RATE_LIMIT_PER_MINUTE) {
        tally.tooMany += 1;
        return { statusCode: 429, data: { error: 'rate limited' }, responseOptions: { headers: { ...headers, 'x-ratelimit-remaining': '0' } } };
      }
      w.used += 1;
      const path = opts.path.split('?')[0]!;
      const route = `${opts.method} ${path.replace(/\/\d+/g, '/{id}')}`;
      tally.byRoute[route] = (tally.byRoute[route] ?? 0) + 1;
      const { status, body } = bodyFor(opts.method, path, guildOfKey(key));
      return {
        statusCode: status,
        data: JSON.stringify(body),
        responseOptions: { headers: { ...headers, 'x-ratelimit-remaining': String(RATE_LIMIT_PER_MINUTE - w.used) } },
      };
    })
    .persist();
  return tally;
}
