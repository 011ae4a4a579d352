/**
 * An in-process feed API on undici's MockAgent: no socket, answers as soon as it is asked (or
 * after a per-key latency), with the contract's rate-limit headers. Counts requests per key.
 */
import { MockAgent } from 'undici';
import {
  FeedListResponseSchema,
  PostsResponseSchema,
  StatsSchema,
  type FeedListResponse,
  type PostsResponse,
  type Stats,
} from '@feedbot/feed-api-contract';

export const MOCK_ORIGIN = 'https://feed-api.bench.invalid';
export const MOCK_BASE = `${MOCK_ORIGIN}/v1`;

export const SAMPLE_FEEDS: FeedListResponse = FeedListResponseSchema.parse({
  feeds: [
    { id: 1, cuenta: 'nasa', canal: '1300000000000000001', estado: 'activo', tipos: ['post', 'reel'], filtros: 0, ultimoPost: '2026-11-20T18:30:00.000Z' },
    { id: 2, cuenta: 'esa', canal: '1300000000000000002', estado: 'pausado', tipos: ['story'], filtros: 2, ultimoPost: null },
    { id: 3, cuenta: 'natgeo', canal: '1300000000000000001', estado: 'activo', tipos: ['post', 'reel', 'story'], filtros: 1, ultimoPost: '2026-11-21T08:00:00.000Z' },
    { id: 4, cuenta: 'cocina.facil', canal: '1300000000000000003', estado: 'activo', tipos: ['post'], filtros: 0, ultimoPost: '2026-11-19T12:00:00.000Z' },
  ],
  total: 4,
  plan: 'server',
});

const SAMPLE_STATS: Stats = StatsSchema.parse({
  servidor: '1100000000000000001',
  plan: 'server',
  feedsActivos: 3,
  feedsPausados: 1,
  postsHoy: 12,
  postsEstaSemana: 57,
  cuentaMasActiva: 'nasa',
  ultimaActividad: '2026-11-21T08:00:00.000Z',
});

const SAMPLE_POSTS: PostsResponse = PostsResponseSchema.parse({
  posts: Array.from({ length: 5 }, (_, i) => ({
    id: `AbCdEfGhIj${i}`,
    tipo: 'post',
    caption: `Post ${i}: a caption of ordinary length about space and the sea`,
    mediaUrl: `https://media.bench.invalid/${i}.png`,
    postUrl: `https://posts.bench.invalid/p/${i}`,
    publicadoEn: '2026-11-20T18:30:00.000Z',
    publicadoDiscord: '2026-11-20T18:31:00.000Z',
  })),
});

export interface MockApi {
  agent: MockAgent;
  /** Requests answered, by API key. */
  requests: Map<string, number>;
  close(): Promise<void>;
}

export interface MockApiOptions {
  /** Answer latency by API key (ms); keys not listed answer at once. */
  latencyMs?: Record<string, number>;
  /** `X-RateLimit-Remaining` to report; large by default so the client's gate never refuses. */
  remaining?: number;
}

function keyOf(headers: unknown): string {
  const h = (headers ?? {}) as Record<string, string | string[] | undefined>;
  const auth = h.authorization ?? h.Authorization ?? '';
  return (Array.isArray(auth) ? (auth[0] ?? '') : auth).replace(/^Bearer /, '');
}

export function startMockApi(opts: MockApiOptions = {}): MockApi {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(MOCK_ORIGIN);
  const requests = new Map<string, number>();
  const latencyOf = (key: string) => opts.latencyMs?.[key] ?? 0;
  const latencies = new Set([0, ...Object.values(opts.latencyMs ?? {})]);
  const routes: [RegExp, unknown][] = [
    [/^\/v1\/feeds(\?.*)?$/, SAMPLE_FEEDS],
    [/^\/v1\/stats(\?.*)?$/, SAMPLE_STATS],
    [/^\/v1\/feeds\/\d+\/posts(\?.*)?$/, SAMPLE_POSTS],
  ];
  for (const latency of latencies) {
    for (const [path, body] of routes) {
      const text = JSON.stringify(body);
      const scope = pool
        .intercept({ path: (p) => path.test(p), method: 'GET', headers: (h) => latencyOf(keyOf(h)) === latency })
        .reply((req) => {
          const key = keyOf(req.headers);
          requests.set(key, (requests.get(key) ?? 0) + 1);
          return {
            statusCode: 200,
            data: text,
            responseOptions: {
              headers: {
                'content-type': 'application/json',
                'x-ratelimit-remaining': String(opts.remaining ?? 1_000_000_000),
                'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60),
              },
            },
          };
        });
      if (latency > 0) scope.delay(latency);
      scope.persist();
    }
  }
  return { agent, requests, close: () => agent.close() };
}
