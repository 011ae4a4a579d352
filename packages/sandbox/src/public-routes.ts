/**
 * Routes anyone may read, without a key: the OpenAPI document, a health check, and the media and
 * post pages that the posts' `mediaUrl` and `postUrl` point at.
 */
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '@feedbot/feed-api-contract/openapi';
import { POST_CODE_PATTERN } from './content.js';
import { ApiError } from './errors.js';
import { renderPng, renderPostPage, renderSvg } from './media.js';
import type { SandboxStore } from './store.js';

/** Their fastify patterns: they report, but do not spend, the caller's IP budget (gate.ts). */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(['/openapi.json', '/health', '/media/:file', '/p/:code']);

const PNG_CACHE_SIZE = 256;

/** Where the sandbox serves a post's image and page. */
export function postLinks(baseUrl: string, code: string): { mediaUrl: string; postUrl: string } {
  return { mediaUrl: `${baseUrl}/media/${code}.png`, postUrl: `${baseUrl}/p/${code}` };
}

export function registerPublicRoutes(app: FastifyInstance, deps: { store: SandboxStore; baseUrl: () => string }): void {
  const { store } = deps;
  const openApiDocument = buildOpenApiDocument();
  /** Rendered PNGs by post code, oldest dropped first. */
  const pngCache = new Map<string, Buffer>();

  app.get('/openapi.json', async () => openApiDocument);
  app.get('/health', async () => ({ ok: true }));

  app.get('/media/:file', async (request, reply) => {
    const file = String((request.params as Record<string, unknown>).file);
    const match = /^([0-9A-Za-z]{11})\.(png|svg)$/.exec(file);
    const post = match?.[1] ? await store.getPostByCode(match[1]) : undefined;
    if (!match || !post) throw new ApiError(404, 'not_found', 'No existe esa imagen');
    reply.header('Cache-Control', 'public, max-age=86400');
    if (match[2] === 'svg') return reply.type('image/svg+xml').send(renderSvg(post));
    let png = pngCache.get(post.code);
    if (!png) {
      png = renderPng(post.code, post.tipo);
      if (pngCache.size >= PNG_CACHE_SIZE) pngCache.delete(pngCache.keys().next().value as string);
      pngCache.set(post.code, png);
    }
    return reply.type('image/png').send(png);
  });

  app.get('/p/:code', async (request, reply) => {
    const code = String((request.params as Record<string, unknown>).code);
    const post = POST_CODE_PATTERN.test(code) ? await store.getPostByCode(code) : undefined;
    if (!post) throw new ApiError(404, 'not_found', 'No existe esa publicación');
    return reply.type('text/html; charset=utf-8').send(renderPostPage(post, postLinks(deps.baseUrl(), post.code).mediaUrl));
  });
}
