/**
 * The OpenAPI 3.1 document of the feed API, generated from the contract's zod schemas and route
 * table with zod-openapi. Nothing here restates a shape: if a schema changes, the document follows
 * (docs/openapi.json is regenerated with `npm run openapi`; a test fails when it is stale).
 */
import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import {
  ErrorBodySchema,
  POSTS_LIMIT_MAX,
  RATE_LIMIT_PER_MINUTE,
  RATE_LIMIT_REMAINING_HEADER,
  RATE_LIMIT_RESET_HEADER,
  ROUTES,
  SCOPES,
  type RouteContract,
} from './feed-api.js';

export const OPENAPI_TITLE = 'Feed management API';
export const OPENAPI_VERSION = '1.0.0';
/** Default value of the `base_url` server variable: where `npm run sandbox` listens. */
export const OPENAPI_DEFAULT_BASE_URL = 'https://127.0.0.1:8443';

const SECURITY_SCHEME = 'bearerApiKey';

const RateLimitHeaders = z.object({
  [RATE_LIMIT_REMAINING_HEADER]: z
    .number()
    .int()
    .nonnegative()
    .meta({
      description: 'Requests left in the current window',
      header: { id: 'RateLimitRemaining' },
    }),
  [RATE_LIMIT_RESET_HEADER]: z
    .number()
    .int()
    .meta({
      description: 'When the current window resets, as a Unix timestamp (seconds)',
      header: { id: 'RateLimitReset' },
    }),
});

function errorResponse(id: string, description: string): ZodOpenApiResponseObject {
  return {
    id,
    description,
    headers: RateLimitHeaders,
    content: { 'application/json': { schema: ErrorBodySchema } },
  };
}

const ERROR_RESPONSES = {
  '400': errorResponse('BadRequest', 'Invalid parameters in the request'),
  '401': errorResponse('Unauthorized', 'API key invalid or not provided'),
  '403': errorResponse(
    'Forbidden',
    'The key lacks the scope the endpoint needs, or the server is not on the `server` plan',
  ),
  '404': errorResponse('NotFound', 'The feed does not exist or belongs to another server'),
  '429': errorResponse('TooManyRequests', `Rate limit exceeded (${RATE_LIMIT_PER_MINUTE} requests per minute per key)`),
  '500': errorResponse('InternalError', 'Internal error'),
} satisfies Record<string, ZodOpenApiResponseObject>;

function operationFor(name: string, route: RouteContract): ZodOpenApiOperationObject {
  const responses: ZodOpenApiResponsesObject = {
    [String(route.successStatus)]: {
      description: route.successStatus === 201 ? 'Resource created' : 'Success',
      headers: RateLimitHeaders,
      content: { 'application/json': { schema: route.response } },
    },
  };
  if (route.body || route.query || route.pathParams) responses['400'] = ERROR_RESPONSES['400'];
  responses['401'] = ERROR_RESPONSES['401'];
  responses['403'] = ERROR_RESPONSES['403'];
  if (route.pathParams) responses['404'] = ERROR_RESPONSES['404'];
  responses['429'] = ERROR_RESPONSES['429'];
  responses['500'] = ERROR_RESPONSES['500'];

  const operation: ZodOpenApiOperationObject = {
    operationId: name,
    summary: route.summary,
    description: `Requires scope \`${route.scope}\`.`,
    security: [{ [SECURITY_SCHEME]: [route.scope] }],
    responses,
  };
  if (route.pathParams || route.query) {
    operation.requestParams = {
      ...(route.pathParams ? { path: route.pathParams } : {}),
      ...(route.query ? { query: route.query } : {}),
    };
  }
  if (route.body) {
    operation.requestBody = { required: true, content: { 'application/json': { schema: route.body } } };
  }
  return operation;
}

function buildPaths(): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const [name, route] of Object.entries(ROUTES) as [string, RouteContract][]) {
    const item = (paths[route.path] ??= {});
    const method = route.method.toLowerCase() as 'get' | 'post' | 'delete';
    item[method] = operationFor(name, route);
  }
  return paths;
}

/** The whole document, deterministic (no dates, no ports), so the committed copy can be compared. */
export function buildOpenApiDocument(): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: OPENAPI_TITLE,
      version: OPENAPI_VERSION,
      description: [
        'REST API to manage social-post forwarding feeds of a Discord server.',
        'Only servers on the `server` plan may use it; each key belongs to one server and sees only its data.',
        `Every response carries \`${RATE_LIMIT_REMAINING_HEADER}\` and \`${RATE_LIMIT_RESET_HEADER}\`.`,
        `\`limite\` on posts accepts 1–${POSTS_LIMIT_MAX}.`,
        'Decisions where the specification is silent: docs/api-decisions.md.',
      ].join(' '),
    },
    servers: [
      {
        url: '{base_url}',
        description: 'The API base address (HTTPS only)',
        variables: { base_url: { default: OPENAPI_DEFAULT_BASE_URL } },
      },
    ],
    paths: buildPaths(),
    components: {
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: `API key of one server, sent as \`Authorization: Bearer <API_KEY>\`. Scopes: ${SCOPES.map((s) => `\`${s}\``).join(', ')}.`,
        },
      },
    },
  });
}

/** The document as committed: two-space JSON with a final newline. */
export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
