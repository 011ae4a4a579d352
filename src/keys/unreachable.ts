/**
 * A key store's server that cannot be used when a store opens (PostgreSQL or Redis named by
 * DATABASE_URL, or a migration's --from / --to): one line an operator can act on, naming the
 * variable, host:port and why (authentication failed, connection refused, timed out, host not
 * found), never the URL's password nor a driver's stack. Drivers word the same failure many ways
 * (pg's 28P01, Redis's WRONGPASS, Node's ECONNREFUSED inside an AggregateError, node-redis's
 * ReconnectStrategyError around the cause): the reason is read from every error in the chain.
 */
import { KeyStoreError } from './errors.js';
import { redactPassword, type StoreLocation } from './store-url.js';

type ServerLocation = Exclude<StoreLocation, { kind: 'sqlite' }>;

/** A 'storage' KeyStoreError (as every failure of the storage layer) that says which server and why. */
class StoreUnreachableError extends KeyStoreError {
  constructor(
    readonly variable: string,
    readonly address: string,
    readonly why: string,
  ) {
    super('storage', `${variable}: cannot use the key store at ${address}: ${why}`);
  }
}

const DEFAULT_PORTS = { postgres: '5432', redis: '6379' } as const;

/** host:port of a server URL, with the scheme's default port when the URL names none. */
export function addressOf(location: ServerLocation): string {
  const url = new URL(location.url);
  return `${url.hostname}:${url.port || DEFAULT_PORTS[location.kind]}`;
}

const REASONS: Array<[RegExp, string]> = [
  [/^(28P01|28000)$|WRONGPASS|NOAUTH|password authentication failed|invalid (username-)?password/i, 'authentication failed (check the user name and password in the URL)'],
  [/^3D000$/, 'the database does not exist (create it first)'],
  [/^ECONNREFUSED$/, 'connection refused (is the server running and listening on that port?)'],
  [/^(ETIMEDOUT|ESOCKETTIMEDOUT)$|time(d)? ?out|did not answer in time/i, 'timed out (the server did not answer within 5 s)'],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)$/, 'host not found'],
  [/^(ECONNRESET|EPIPE)$|terminated unexpectedly|closed unexpectedly|Socket closed/i, 'the server closed the connection (is it the right kind of server, and does it accept this client?)'],
  [/^(EHOSTUNREACH|ENETUNREACH)$/, 'host unreachable'],
];

/** Every error in `error`'s chain: causes, AggregateError members, node-redis's originalError. */
function chain(error: unknown, seen = new Set<unknown>()): Error[] {
  if (!(error instanceof Error) || seen.has(error)) return [];
  seen.add(error);
  const e = error as Error & { errors?: unknown; originalError?: unknown };
  const nested = [e.cause, e.originalError, ...(Array.isArray(e.errors) ? e.errors : [])];
  return [error, ...nested.flatMap((inner) => chain(inner, seen))];
}

/** Why a connection failed, in words; the driver's code (or capped message) when none fits. */
export function whyUnreachable(error: unknown, password: string | undefined): string {
  const errors = chain(error);
  for (const [pattern, reason] of REASONS) {
    for (const e of errors) {
      const code = (e as { code?: unknown }).code;
      if ((typeof code === 'string' && pattern.test(code)) || pattern.test(e.message)) return reason;
    }
  }
  const first = errors[0];
  const code = (first as { code?: unknown } | undefined)?.code;
  const detail = typeof code === 'string' ? code : (first?.message ?? 'unknown error').split('\n')[0]!.slice(0, 200);
  return redactPassword(detail, password);
}

/** The error to throw when a server store could not be opened. */
export function unreachable(variable: string, location: ServerLocation, error: unknown): StoreUnreachableError {
  return new StoreUnreachableError(variable, addressOf(location), whyUnreachable(error, location.password));
}
