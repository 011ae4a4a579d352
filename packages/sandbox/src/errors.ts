/**
 * Every error the sandbox answers, in the documented body shape (ErrorBodySchema,
 * docs/api-decisions.md). Statuses stay within the spec's table: 400, 401, 403, 404, 429, 500.
 */
import type { z } from 'zod';
import type { ErrorBody } from '@feedbot/feed-api-contract';

export type ErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'unsupported_content_type'
  | 'body_too_large'
  | 'bad_request'
  | 'duplicate_feed'
  | 'feed_limit'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'plan_required'
  | 'missing_scope'
  | 'https_required'
  | 'not_found'
  | 'rate_limited'
  | 'internal_error';

export type ErrorStatus = 400 | 401 | 403 | 404 | 429 | 500;

export interface FieldProblem {
  campo: string;
  mensaje: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly codigo: ErrorCode,
    readonly mensaje: string,
    readonly detalles?: FieldProblem[],
  ) {
    super(mensaje);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    return errorBody(this.codigo, this.mensaje, this.detalles);
  }
}

export function errorBody(codigo: ErrorCode, mensaje: string, detalles?: FieldProblem[]): ErrorBody {
  return { error: { codigo, mensaje, ...(detalles && detalles.length > 0 ? { detalles } : {}) } };
}

/** A 400 listing the zod issues; `whole` names the input when an issue is about all of it. */
export function validationError(whole: string, error: z.ZodError): ApiError {
  const detalles = error.issues.slice(0, 20).map((issue) => ({
    campo: issue.path.map(String).join('.') || whole,
    mensaje: issue.message,
  }));
  return new ApiError(400, 'invalid_request', 'Parámetros no válidos en la solicitud', detalles);
}

export const feedNotFound = (id: number | string): ApiError =>
  new ApiError(404, 'not_found', `No existe el feed ${String(id)}`);
