/** What every control route shares: its answer, its errors, its JSON body and zod checks. */
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { readBody } from '../http.js';

export const Snowflake = z.string().regex(/^\d{15,21}$/, 'must be a snowflake');
export const Permissions = z.string().regex(/^\d{1,20}$/, 'must be a decimal permission bit set');

/** A route's answer: JSON `body`, or `raw` bytes (attachments). */
export interface ControlResult {
  status: number;
  body?: unknown;
  raw?: { data: Buffer; contentType: string };
}

export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const raw = await readBody(req);
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ControlError(400, 'body is not valid JSON');
  }
}

export function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ControlError(400, 'invalid request', z.treeifyError(result.error));
  return result.data;
}
