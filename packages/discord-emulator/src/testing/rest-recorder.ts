/**
 * Discord's REST API as a unit test needs it: plugged into a discord.js client through the
 * `rest.makeRequest` option, it records every call and answers at once, the way Discord would
 * for a bot that does nothing wrong: interaction callbacks and deletes with 204, webhook calls
 * (edits, follow-ups) with the message they create, anything else with `{}`.
 *
 *   const recorder = new RestRecorder();
 *   const client = new Client({ intents: [], rest: recorder.rest });
 *   client.rest.setToken('not-a-real-token');
 *
 * Only types come from discord.js: the caller brings the client.
 */
import type { ClientOptions } from 'discord.js';
import { fakeMessage } from './messages.js';

export interface RecordedRequest {
  method: string;
  /** Path after `/api/vN`, URL-decoded (`/webhooks/1/tok/messages/@original`). */
  path: string;
  /** The query string with its `?`; empty when none. */
  query: string;
  /** The JSON body as discord.js sent it; undefined without a body or for multipart uploads. */
  raw: string | undefined;
  /** `raw` parsed, on first read (parsing is kept out of the request's own path). */
  readonly body: unknown;
  /** The recorder's clock when discord.js handed the request to the transport. */
  at: number;
}

export interface RestRecorderOptions {
  /** Timestamps of recorded calls; default Date.now (benchmarks pass performance.now). */
  clock?: () => number;
  /** Delay of every answer, in ms (Discord's own latency); default 0. Settable later. */
  latencyMs?: number;
  /** discord.js `rest.api`; nothing is ever sent there. */
  api?: string;
  /** Channel of the messages webhook calls answer with. */
  channelId?: string;
}

type RestOptions = NonNullable<ClientOptions['rest']>;
type ResponseLike = Awaited<ReturnType<NonNullable<RestOptions['makeRequest']>>>;

/** `/interactions/{id}/{token}/callback` → the interaction id. */
function callbackOf(path: string): string | undefined {
  return path.startsWith('/interactions/') && path.endsWith('/callback') ? path.split('/', 3)[2] : undefined;
}

/** One recorded request; `body` is parsed from `raw` on first read and kept. */
class Recorded implements RecordedRequest {
  readonly path: string;
  readonly query: string;
  private parsed: { value: unknown } | undefined;

  constructor(
    url: string,
    readonly method: string,
    readonly raw: string | undefined,
    readonly at: number,
  ) {
    const u = new URL(url);
    const path = u.pathname.replace(/^\/api\/v\d+/, '');
    this.path = path.includes('%') ? decodeURIComponent(path) : path;
    this.query = u.search;
  }

  get body(): unknown {
    this.parsed ??= { value: this.raw === undefined ? undefined : (JSON.parse(this.raw) as unknown) };
    return this.parsed.value;
  }

  /** With `body`, so a serialised record shows what was sent. */
  toJSON(): Record<string, unknown> {
    return { method: this.method, path: this.path, query: this.query, raw: this.raw, body: this.body, at: this.at };
  }
}

export class RestRecorder {
  /** Every call, oldest first. */
  readonly calls: RecordedRequest[] = [];
  latencyMs: number;
  /**
   * When set, a call it returns a Response for gets that answer instead (an error a test needs:
   * a 404 10062 on a callback, a 500 on an edit); undefined keeps the usual one. Recorded either way.
   */
  respond: ((call: RecordedRequest) => Response | undefined) | undefined;
  /** Pass as discord.js `ClientOptions.rest`. */
  readonly rest: RestOptions;

  private readonly clock: () => number;
  private readonly channelId: string;
  private readonly callbackById = new Map<string, RecordedRequest>();
  private readonly waiters = new Map<string, (call: RecordedRequest) => void>();

  constructor(opts: RestRecorderOptions = {}) {
    this.clock = opts.clock ?? Date.now;
    this.latencyMs = opts.latencyMs ?? 0;
    this.channelId = opts.channelId ?? '222222222222222223';
    this.rest = {
      api: opts.api ?? 'https://discord.invalid/api',
      makeRequest: async (url, init) => {
        const at = this.clock();
        const call = new Recorded(url, init.method ?? 'GET', typeof init.body === 'string' ? init.body : undefined, at);
        this.record(call);
        if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
        // The global Response is what discord.js expects; only the DOM and Node typings of its
        // body stream differ.
        return (this.respond?.(call) ?? this.answer(call)) as unknown as ResponseLike;
      },
    };
  }

  /** Interaction callbacks (the acknowledgements), oldest first. */
  callbacks(): RecordedRequest[] {
    return this.calls.filter((c) => callbackOf(c.path) !== undefined);
  }

  /** Edits of an interaction's original response. */
  edits(): RecordedRequest[] {
    return this.calls.filter((c) => c.method === 'PATCH' && c.path.endsWith('/messages/@original'));
  }

  /** Follow-up messages (`POST /webhooks/{app}/{token}`). */
  followUps(): RecordedRequest[] {
    return this.calls.filter((c) => c.method === 'POST' && c.path.startsWith('/webhooks/') && !c.path.includes('/messages/'));
  }

  /** Resolves with the interaction's callback, whether it came already or comes within `timeoutMs`. */
  callback(interactionId: string, timeoutMs = 30_000): Promise<RecordedRequest> {
    const seen = this.callbackById.get(interactionId);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(interactionId);
        reject(new Error(`interaction ${interactionId} was not acknowledged within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(interactionId, (call) => {
        clearTimeout(timer);
        resolve(call);
      });
    });
  }

  private record(call: RecordedRequest): void {
    this.calls.push(call);
    const interactionId = callbackOf(call.path);
    if (interactionId === undefined || this.callbackById.has(interactionId)) return;
    this.callbackById.set(interactionId, call);
    const waiter = this.waiters.get(interactionId);
    if (!waiter) return;
    this.waiters.delete(interactionId);
    waiter(call);
  }

  private answer(call: RecordedRequest): Response {
    if (call.method === 'DELETE' || callbackOf(call.path) !== undefined) return new Response(null, { status: 204 });
    if (!call.path.startsWith('/webhooks/')) return Response.json({});
    const body = (call.body ?? {}) as Record<string, unknown>;
    const applicationId = call.path.split('/')[2] ?? '0';
    const flags = typeof body.flags === 'number' ? body.flags : 0;
    return Response.json(fakeMessage(body, { applicationId, channelId: this.channelId, flags }));
  }
}
