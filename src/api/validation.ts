/**
 * Checking what goes into the client (auth, ids, queries) and turning zod's issues into the
 * `path: message` lines that InvalidRequestError and InvalidResponseError carry.
 */
import { z } from 'zod';
import { ApiKeySchema, ContentKindSchema, POSTS_LIMIT_MAX, type RouteName } from '@feedbot/feed-api-contract';
import { InvalidRequestError } from './errors.js';

export const AuthSchema = z.object({ apiKey: ApiKeySchema, guildId: z.string().min(1, 'guildId must not be empty') });
export const IdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const PostsQueryInputSchema = z
  .object({
    limite: z.number().int().min(1).max(POSTS_LIMIT_MAX).optional(),
    tipo: ContentKindSchema.optional(),
  })
  .strict();

/** One line per issue, `feeds[0].id: message`, `(root): message` for the value itself. */
export function zodIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => {
    let path = '';
    for (const p of i.path) path += typeof p === 'number' ? `[${p}]` : path === '' ? String(p) : `.${String(p)}`;
    return `${path === '' ? '(root)' : path}: ${i.message}`;
  });
}

/** The parsed value, or an InvalidRequestError naming the route and each problem (under `prefix`). */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, route: RouteName, prefix?: string): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    const issues = zodIssues(r.error).map((s) => (prefix ? `${prefix}.${s}` : s));
    throw new InvalidRequestError({ route, issues });
  }
  return r.data;
}
