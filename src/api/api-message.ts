/**
 * Best-effort reading of an error body. The spec does not show the error shape, so nothing here
 * relies on one: a few common places are tried in order and the first string wins.
 */

const API_MESSAGE_MAX = 300;

// C0/C1 controls and bidi overrides/isolates: they could break or disguise a Discord message.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g;

export function sanitizeText(text: string, max = API_MESSAGE_MAX): string | undefined {
  const clean = text.replace(UNSAFE_CHARS, ' ').replace(/\s+/g, ' ').trim();
  if (clean === '') return undefined;
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** `campo: mensaje` pairs from a per-field details list, when present (sandbox 400s carry one). */
function details(v: unknown): string | undefined {
  if (!Array.isArray(v)) return undefined;
  const parts = v
    .filter(isRecord)
    .map((d) => {
      const field = str(d.campo) ?? str(d.field) ?? str(d.path);
      const msg = str(d.mensaje) ?? str(d.message);
      return msg ? (field ? `${field}: ${msg}` : msg) : undefined;
    })
    .filter((s): s is string => s !== undefined);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

function fromJson(body: unknown): string | undefined {
  if (typeof body === 'string') return str(body);
  if (!isRecord(body)) return undefined;
  const err = body.error;
  const errObj = isRecord(err) ? err : undefined;
  const firstError = Array.isArray(body.errors) && isRecord(body.errors[0]) ? body.errors[0] : undefined;
  const main =
    str(body.mensaje) ??
    str(body.message) ??
    str(err) ??
    str(errObj?.mensaje) ??
    str(errObj?.message) ??
    str(body.detail) ??
    str(firstError?.message);
  const extra = details(errObj?.detalles) ?? details(body.detalles) ?? details(errObj?.details);
  if (main && extra) return `${main} (${extra})`;
  return main ?? extra;
}

/**
 * The human message of an error body: JSON in any of the usual shapes, or short plain text.
 * HTML (a proxy's error page) is ignored: it is noise in a Discord reply.
 */
export function extractApiMessage(body: unknown): string | undefined {
  if (typeof body === 'string') {
    const t = body.trim();
    if (t.startsWith('<')) return undefined;
    return sanitizeText(t);
  }
  const found = fromJson(body);
  return found === undefined ? undefined : sanitizeText(found);
}

/**
 * Replaces every occurrence of `secret` inside strings of a JSON-like value. A server that echoes
 * the key back in an error must not make the client leak it through `apiMessage` or `body`.
 */
export function scrubSecret<T>(value: T, secret: string): T {
  if (secret.length === 0) return value;
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return v.includes(secret) ? v.split(secret).join('[redacted]') : v;
    if (depth > 20 || typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[walk(k, depth + 1) as string] = walk(x, depth + 1);
    return out;
  };
  return walk(value, 0) as T;
}
