/**
 * The feed REST API contract (../shared/spec/feed-api.md), in one place.
 *
 * These zod schemas are used by:
 *  - the bot's API client, to validate every response (unknown fields are stripped, so extra
 *    fields are tolerated; missing or mistyped ones are reported);
 *  - the sandbox, to validate requests and shape its responses;
 *  - the OpenAPI 3.1 document (src/openapi.ts → docs/openapi.json at the repository root).
 *
 * Where the spec is silent, the choices are written down in docs/api-decisions.md. The client
 * side is deliberately more tolerant than the sandbox in two places: `estado` is any string (the
 * spec does not list every state) and error bodies are never parsed with a fixed shape.
 */
import { z } from 'zod';

/** Header names, exactly as the spec writes them (HTTP header names are case-insensitive). */
export const RATE_LIMIT_REMAINING_HEADER = 'X-RateLimit-Remaining';
export const RATE_LIMIT_RESET_HEADER = 'X-RateLimit-Reset';
/** 100 requests per minute per key. */
export const RATE_LIMIT_PER_MINUTE = 100;
export const RATE_LIMIT_WINDOW_MS = 60_000;

export const SCOPES = ['feeds:read', 'feeds:write', 'stats:read'] as const;
export const ScopeSchema = z.enum(SCOPES).meta({ id: 'Scope', description: 'A key scope' });
export type Scope = z.infer<typeof ScopeSchema>;

/**
 * An API key, as sent in `Authorization: Bearer <key>`. The spec names no format (the dashboard's
 * keys, like the sandbox's, are `fbk_` and 40 base62 characters), so this is the one rule the bot
 * holds every key to: in the /apikey form, in the key store and in the client. Printable ASCII
 * without spaces, because the key goes into a header; 8 to 512 characters, short enough to keep a
 * pasted message out and long enough for any real key.
 */
export const API_KEY_LENGTH = { min: 8, max: 512 } as const;
export const ApiKeySchema = z
  .string()
  .min(API_KEY_LENGTH.min, `must be at least ${API_KEY_LENGTH.min} characters`)
  .max(API_KEY_LENGTH.max, `must be at most ${API_KEY_LENGTH.max} characters`)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

/** Content kinds; the spec lists them for the posts filter and we use the same set for feeds. */
export const CONTENT_KINDS = ['post', 'reel', 'story'] as const;
export const ContentKindSchema = z
  .enum(CONTENT_KINDS)
  .meta({ id: 'ContentKind', description: 'Kind of content: post, reel or story' });
export type ContentKind = z.infer<typeof ContentKindSchema>;

/** States the sandbox stores. The client accepts any string: the spec's list is open. */
export const FEED_STATES = ['activo', 'pausado'] as const;
export type FeedState = (typeof FEED_STATES)[number];

/** Plan required to use the API. */
export const API_PLAN = 'server';

/**
 * Source account names: letters, digits, period and underscore, 1–30 characters, not starting or
 * ending with a period and without two periods in a row (the usual social-platform rule).
 */
export const ACCOUNT_NAME_PATTERN = /^(?!\.)(?!.*\.\.)(?!.*\.$)[A-Za-z0-9._]{1,30}$/;
export const AccountNameSchema = z
  .string()
  .regex(ACCOUNT_NAME_PATTERN, 'cuenta must be 1–30 letters, digits, "." or "_" (no leading, trailing or double ".")')
  .meta({ description: 'Source account name, without @', example: 'nasa' });

/** Discord ids are snowflakes: 17–20 decimal digits. */
export const SnowflakeSchema = z
  .string()
  .regex(/^\d{17,20}$/, 'must be a Discord id (17–20 digits)')
  .meta({ description: 'A Discord id (numeric string)', example: '1100000000000000001' });

export const TimestampSchema = z.iso
  .datetime({ offset: true })
  .meta({ description: 'ISO 8601 UTC timestamp', example: '2026-11-21T12:00:00.000Z' });

export const FeedIdSchema = z.coerce
  .number()
  .int()
  .positive()
  .max(Number.MAX_SAFE_INTEGER)
  .meta({ description: 'Feed identifier', example: 42 });

// ─── Resources ────────────────────────────────────────────────────────────────────────────────

export const FeedListItemSchema = z
  .object({
    id: z.number().int(),
    cuenta: z.string(),
    canal: z.string().meta({ description: 'Destination channel id (numeric string)' }),
    estado: z.string().meta({ description: 'Feed state: `activo` or `pausado` (clients must accept others)' }),
    tipos: z.array(z.string()).meta({ description: 'Content kinds forwarded' }),
    filtros: z.number().int().nonnegative().meta({ description: 'Number of filters configured' }),
    ultimoPost: TimestampSchema.nullable().meta({
      description: 'Time of the latest post; null until the feed has forwarded one',
    }),
  })
  .meta({ id: 'FeedListItem' });
export type FeedListItem = z.infer<typeof FeedListItemSchema>;

export const FeedListResponseSchema = z
  .object({
    feeds: z.array(FeedListItemSchema),
    total: z.number().int().nonnegative(),
    plan: z.string(),
  })
  .meta({ id: 'FeedList' });
export type FeedListResponse = z.infer<typeof FeedListResponseSchema>;

/** Bounds on one filter: the spec does not show their structure, so only their size is limited. */
export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_NODES = 500;

/**
 * Nesting depth and number of values of a JSON value, measured without recursion (a hostile value
 * 20,000 levels deep must not overflow the stack of whoever checks it). Stops counting past the bounds.
 */
export function jsonShape(value: unknown, maxDepth = MAX_FILTER_DEPTH, maxNodes = MAX_FILTER_NODES): { depth: number; nodes: number } {
  const stack: Array<[unknown, number]> = [[value, 1]];
  let depth = 0;
  let nodes = 0;
  while (stack.length > 0 && depth <= maxDepth && nodes <= maxNodes) {
    const [current, level] = stack.pop()!;
    nodes++;
    depth = Math.max(depth, level);
    if (typeof current === 'object' && current !== null) {
      for (const child of Object.values(current)) stack.push([child, level + 1]);
    }
  }
  return { depth, nodes };
}

/** A filter. The spec does not show their structure; the sandbox accepts objects and counts them. */
export const FilterSchema = z
  .record(z.string(), z.unknown())
  .superRefine((filter, ctx) => {
    const { depth, nodes } = jsonShape(filter);
    if (depth > MAX_FILTER_DEPTH) ctx.addIssue({ code: 'custom', message: `a filter may nest at most ${MAX_FILTER_DEPTH} levels deep` });
    else if (nodes > MAX_FILTER_NODES) ctx.addIssue({ code: 'custom', message: `a filter may hold at most ${MAX_FILTER_NODES} values` });
  })
  .meta({
    id: 'Filter',
    description: `A filter; its structure is not specified. Stored as given and counted. At most ${MAX_FILTER_DEPTH} levels deep and ${MAX_FILTER_NODES} values.`,
  });

export const MAX_FILTERS = 20;

export const CreateFeedRequestSchema = z
  .object({
    cuenta: AccountNameSchema,
    canalId: SnowflakeSchema,
    tipos: z
      .array(ContentKindSchema)
      .min(1, 'tipos must name at least one content kind')
      .max(CONTENT_KINDS.length)
      .refine((t) => new Set(t).size === t.length, 'tipos must not repeat a kind'),
    filtros: z.array(FilterSchema).max(MAX_FILTERS).default([]),
  })
  .meta({ id: 'CreateFeedRequest' });
export type CreateFeedRequest = z.input<typeof CreateFeedRequestSchema>;

export const CreateFeedResponseSchema = z
  .object({
    id: z.number().int(),
    cuenta: z.string(),
    canalId: z.string(),
    estado: z.string(),
    creado: TimestampSchema,
  })
  .meta({ id: 'CreatedFeed' });
export type CreateFeedResponse = z.infer<typeof CreateFeedResponseSchema>;

export const DeleteFeedResponseSchema = z
  .object({ ok: z.boolean(), mensaje: z.string() })
  .meta({ id: 'DeleteFeedResult' });
export type DeleteFeedResponse = z.infer<typeof DeleteFeedResponseSchema>;

export const PostSchema = z
  .object({
    id: z.string(),
    tipo: z.string().meta({ description: '`post`, `reel` or `story`' }),
    caption: z.string(),
    mediaUrl: z.string(),
    postUrl: z.string(),
    publicadoEn: TimestampSchema,
    publicadoDiscord: TimestampSchema,
  })
  .meta({ id: 'Post' });
export type Post = z.infer<typeof PostSchema>;

export const PostsResponseSchema = z.object({ posts: z.array(PostSchema) }).meta({ id: 'PostList' });
export type PostsResponse = z.infer<typeof PostsResponseSchema>;

export const POSTS_LIMIT_DEFAULT = 10;
export const POSTS_LIMIT_MAX = 50;

export const PostsQuerySchema = z.object({
  limite: z.coerce
    .number()
    .int()
    .min(1)
    .max(POSTS_LIMIT_MAX)
    .default(POSTS_LIMIT_DEFAULT)
    .meta({ description: 'How many posts (1–50, default 10)' }),
  tipo: ContentKindSchema.optional().meta({ description: 'Only posts of this kind' }),
});
export type PostsQuery = z.input<typeof PostsQuerySchema>;

export const StatsSchema = z
  .object({
    servidor: z.string(),
    plan: z.string(),
    feedsActivos: z.number().int().nonnegative(),
    feedsPausados: z.number().int().nonnegative(),
    postsHoy: z.number().int().nonnegative(),
    postsEstaSemana: z.number().int().nonnegative(),
    cuentaMasActiva: z.string().nullable().meta({ description: 'Most active account this week; null when none' }),
    ultimaActividad: TimestampSchema.nullable().meta({ description: 'Latest activity; null when none' }),
  })
  .meta({ id: 'Stats' });
export type Stats = z.infer<typeof StatsSchema>;

/**
 * The sandbox's error body (docs/api-decisions.md). The bot never relies on this shape: it
 * looks for a human message in a few common places and otherwise uses the status alone.
 */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      codigo: z.string().meta({ description: 'Machine-readable code, e.g. `invalid_request`' }),
      mensaje: z.string().meta({ description: 'Human-readable explanation' }),
      detalles: z
        .array(z.object({ campo: z.string(), mensaje: z.string() }))
        .optional()
        .meta({ description: 'Per-field problems, for 400' }),
    }),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

// ─── Route table ──────────────────────────────────────────────────────────────────────────────

export interface RouteContract {
  method: 'GET' | 'POST' | 'DELETE';
  /** OpenAPI-style path, e.g. /feeds/{id}/posts */
  path: string;
  scope: Scope;
  summary: string;
  successStatus: 200 | 201;
  response: z.ZodType;
  body?: z.ZodType;
  query?: z.ZodObject;
  pathParams?: z.ZodObject;
}

export const ROUTES = {
  listFeeds: {
    method: 'GET',
    path: '/feeds',
    scope: 'feeds:read',
    summary: 'List all feeds of the server',
    successStatus: 200,
    response: FeedListResponseSchema,
  },
  createFeed: {
    method: 'POST',
    path: '/feeds',
    scope: 'feeds:write',
    summary: 'Create a feed',
    successStatus: 201,
    response: CreateFeedResponseSchema,
    body: CreateFeedRequestSchema,
  },
  deleteFeed: {
    method: 'DELETE',
    path: '/feeds/{id}',
    scope: 'feeds:write',
    summary: 'Delete a feed permanently',
    successStatus: 200,
    response: DeleteFeedResponseSchema,
    pathParams: z.object({ id: FeedIdSchema }),
  },
  listPosts: {
    method: 'GET',
    path: '/feeds/{id}/posts',
    scope: 'feeds:read',
    summary: 'Latest posts published by a feed, newest first',
    successStatus: 200,
    response: PostsResponseSchema,
    pathParams: z.object({ id: FeedIdSchema }),
    query: PostsQuerySchema,
  },
  getStats: {
    method: 'GET',
    path: '/stats',
    scope: 'stats:read',
    summary: 'Server statistics',
    successStatus: 200,
    response: StatsSchema,
  },
} as const satisfies Record<string, RouteContract>;

export type RouteName = keyof typeof ROUTES;
