/**
 * Discord answering badly: a wrapper around a discord.js client's `rest.makeRequest` that answers
 * chosen calls with an error (10062, 40060, 5xx, 429) instead of passing them on to whatever
 * transport the client had (the harness's RestRecorder). Faulted calls never reach that
 * transport, so the recorder's `calls` hold only what Discord accepted; `injected` holds the rest.
 */
import type { Client } from 'discord.js';

/** Which kind of interaction call a REST request is. */
export type DiscordCallKind = 'callback' | 'edit' | 'followUp' | 'deleteOriginal' | 'other';

export function callKind(method: string, path: string): DiscordCallKind {
  if (path.startsWith('/interactions/') && path.endsWith('/callback')) return 'callback';
  if (!path.startsWith('/webhooks/')) return 'other';
  if (path.endsWith('/messages/@original')) return method === 'PATCH' ? 'edit' : method === 'DELETE' ? 'deleteOriginal' : 'other';
  return method === 'POST' ? 'followUp' : 'other';
}

/** An error answer, as Discord sends it. */
export interface DiscordFaultAnswer {
  /** For test names and the reliability table. */
  label: string;
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export const DISCORD_ANSWERS = {
  unknownInteraction: { label: '10062 Unknown interaction', status: 404, body: { message: 'Unknown interaction', code: 10062 } },
  alreadyAcknowledged: {
    label: '40060 already acknowledged',
    status: 400,
    body: { message: 'Interaction has already been acknowledged.', code: 40060 },
  },
  badGateway: { label: '502', status: 502, body: { message: '502 Bad Gateway', code: 0 } },
  serviceUnavailable: { label: '503', status: 503, body: { message: '503 Service Unavailable', code: 0 } },
  /** discord.js waits `Retry-After` (plus its 50 ms offset) and sends again. */
  rateLimited: {
    label: '429',
    status: 429,
    body: { message: 'You are being rate limited.', retry_after: 0.02, global: false },
    headers: { 'retry-after': '0.02', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '0.02', 'x-ratelimit-scope': 'user' },
  },
} as const satisfies Record<string, DiscordFaultAnswer>;

/** discord.js sends a request answered 5xx this many times in all (1 + its default 3 retries). */
export const DISCORD_JS_5XX_ATTEMPTS = 4;

interface Rule {
  kind: DiscordCallKind;
  answer: DiscordFaultAnswer;
  remaining: number;
}

export interface InjectedCall {
  kind: DiscordCallKind;
  method: string;
  path: string;
  status: number;
}

type MakeRequest = NonNullable<Client['rest']['options']['makeRequest']>;

export class DiscordFaults {
  readonly injected: InjectedCall[] = [];
  private readonly rules: Rule[] = [];

  constructor(client: Client) {
    const options = client.rest.options;
    const pass: MakeRequest = options.makeRequest.bind(options);
    options.makeRequest = async (url, init) => {
      const method = init.method ?? 'GET';
      const path = decodeURIComponent(new URL(url).pathname.replace(/^\/api\/v\d+/, ''));
      const kind = callKind(method, path);
      const rule = this.rules.find((r) => r.kind === kind && r.remaining > 0);
      if (!rule) return pass(url, init);
      rule.remaining -= 1;
      this.injected.push({ kind, method, path, status: rule.answer.status });
      const headers = { 'content-type': 'application/json', ...rule.answer.headers };
      return new Response(JSON.stringify(rule.answer.body), { status: rule.answer.status, headers }) as unknown as Awaited<ReturnType<MakeRequest>>;
    };
  }

  /** The next `times` calls of `kind` get `answer` (Infinity: all of them). */
  add(kind: DiscordCallKind, answer: DiscordFaultAnswer, times = 1): this {
    this.rules.push({ kind, answer, remaining: times });
    return this;
  }
}
