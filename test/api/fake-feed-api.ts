/**
 * A tiny in-memory feed API behind a MockAgent: enough of the spec to run the contract suite
 * without a network (keys with scopes, feeds, posts, stats, rate-limit headers). The real
 * sandbox (HTTPS on 127.0.0.1) runs the same suite through another ContractBackend.
 */
import { MockAgent } from 'undici';
import type { Scope } from '@feedbot/feed-api-contract';
import type { ContractBackend } from './contract-suite.js';

const ORIGIN = 'https://fake-feed-api.test';
const PREFIX = '/api/v1';

interface FakeFeed {
  id: number;
  cuenta: string;
  canal: string;
  tipos: string[];
  filtros: number;
}

type Reply = { statusCode: number; data: string; responseOptions: { headers: Record<string, string> } };

export function fakeFeedApiBackend(opts: { guildId?: string; limit?: number } = {}): ContractBackend {
  const guildId = opts.guildId ?? '1200000000000000001';
  const limit = opts.limit ?? 100;
  const keys = new Map<string, Scope[]>([['full-key-0123456789', ['feeds:read', 'feeds:write', 'stats:read']]]);
  const feeds: FakeFeed[] = [];
  let nextId = 1;
  let used = 0;
  let keyCounter = 0;
  const resetSec = Math.floor(Date.now() / 1000) + 60;

  const agent = new MockAgent();
  agent.disableNetConnect();

  const reply = (statusCode: number, body: unknown): Reply => ({
    statusCode,
    data: JSON.stringify(body),
    responseOptions: {
      headers: {
        'content-type': 'application/json',
        'x-ratelimit-remaining': String(Math.max(0, limit - used)),
        'x-ratelimit-reset': String(resetSec),
      },
    },
  });
  const error = (status: number, codigo: string, mensaje: string) => reply(status, { error: { codigo, mensaje } });

  function handle(method: string, fullPath: string, headers: Record<string, string>, rawBody: unknown): Reply {
    const auth = headers.authorization ?? headers.Authorization ?? '';
    const key = /^Bearer (\S+)$/.exec(auth)?.[1];
    const scopes = key === undefined ? undefined : keys.get(key);
    if (!scopes) return error(401, 'unauthorized', 'API key invalid or missing');
    if (used >= limit) return error(429, 'rate_limited', 'Too many requests');
    used++;
    const url = new URL(fullPath, ORIGIN);
    const path = url.pathname.slice(PREFIX.length);
    const need = (s: Scope) => (scopes.includes(s) ? undefined : error(403, 'forbidden', `scope ${s} required`));

    if (method === 'GET' && path === '/feeds') {
      return (
        need('feeds:read') ??
        reply(200, {
          feeds: feeds.map((f) => ({ ...f, estado: 'activo', ultimoPost: null })),
          total: feeds.length,
          plan: 'server',
        })
      );
    }
    if (method === 'POST' && path === '/feeds') {
      const denied = need('feeds:write');
      if (denied) return denied;
      const b = JSON.parse(typeof rawBody === 'string' ? rawBody : '{}') as Record<string, unknown>;
      if (typeof b.cuenta !== 'string' || typeof b.canalId !== 'string' || !Array.isArray(b.tipos)) {
        return error(400, 'invalid_request', 'cuenta, canalId and tipos are required');
      }
      const f: FakeFeed = { id: nextId++, cuenta: b.cuenta, canal: b.canalId, tipos: b.tipos as string[], filtros: 0 };
      feeds.push(f);
      return reply(201, { id: f.id, cuenta: f.cuenta, canalId: f.canal, estado: 'activo', creado: new Date().toISOString() });
    }
    const del = /^\/feeds\/(\d+)$/.exec(path);
    if (method === 'DELETE' && del) {
      const denied = need('feeds:write');
      if (denied) return denied;
      const i = feeds.findIndex((f) => f.id === Number(del[1]));
      if (i < 0) return error(404, 'not_found', `feed ${del[1]} not found`);
      feeds.splice(i, 1);
      return reply(200, { ok: true, mensaje: `Feed ${del[1]} eliminado` });
    }
    const posts = /^\/feeds\/(\d+)\/posts$/.exec(path);
    if (method === 'GET' && posts) {
      const denied = need('feeds:read');
      if (denied) return denied;
      if (!feeds.some((f) => f.id === Number(posts[1]))) return error(404, 'not_found', 'feed not found');
      return reply(200, { posts: [] });
    }
    if (method === 'GET' && path === '/stats') {
      return (
        need('stats:read') ??
        reply(200, {
          servidor: guildId,
          plan: 'server',
          feedsActivos: feeds.length,
          feedsPausados: 0,
          postsHoy: 0,
          postsEstaSemana: 0,
          cuentaMasActiva: null,
          ultimaActividad: null,
        })
      );
    }
    return error(404, 'not_found', 'no such route');
  }

  agent
    .get(ORIGIN)
    .intercept({ path: (p) => p.startsWith(`${PREFIX}/`), method: () => true })
    .reply((o) => handle(o.method, o.path, (o.headers ?? {}) as Record<string, string>, o.body))
    .persist();

  return {
    baseUrl: `${ORIGIN}${PREFIX}`,
    dispatcher: agent,
    guildId,
    fullKey: 'full-key-0123456789',
    invalidKey: 'not-a-key-0000',
    keyWithScopes(scopes: Scope[]) {
      const k = `scoped-key-${++keyCounter}-abcdef`;
      keys.set(k, scopes);
      return Promise.resolve(k);
    },
    async close() {
      agent.assertNoPendingInterceptors();
      await agent.close();
    },
  };
}
