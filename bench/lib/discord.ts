/**
 * Real discord.js objects without Discord: interactions are built from raw gateway payloads and
 * dispatched through discord.js' own InteractionCreate action; every REST call the client makes
 * is captured through the `rest.makeRequest` option and answered at once. What a benchmark reads
 * is the moment the interaction callback (the acknowledgement) left discord.js.
 */
import type { APIInteraction } from 'discord-api-types/v10';
import type { Client, ClientOptions } from 'discord.js';
import { Response } from 'undici';

import { fakeMessage } from '../../test/helpers/discord.js';

// Raw payloads come from the tests' builders, so benchmarks and tests drive the same interactions.
export { APP_ID, CHANNEL_ID, chatInput, autocomplete, snowflake } from '../../test/helpers/discord.js';

export interface CallbackRecord {
  /** performance.now() when discord.js handed the callback to the transport. */
  at: number;
  /** The raw JSON body (parsed on demand: parsing is not part of what is measured). */
  raw: string | undefined;
}

export interface WebhookRecord {
  at: number;
  method: string;
  path: string;
  raw: string | undefined;
}


/**
 * Captures one client's REST traffic. Callbacks are matched to interactions by id; a waiter may
 * register before or after the callback arrives.
 */
export class RestCapture {
  private readonly callbacks = new Map<string, CallbackRecord>();
  private readonly waiters = new Map<string, (record: CallbackRecord) => void>();
  readonly webhooks: WebhookRecord[] = [];
  callbackCount = 0;

  readonly rest: ClientOptions['rest'] = {
    api: 'https://discord.invalid/api',
    makeRequest: async (url: string, init) => {
      const at = performance.now();
      const raw = typeof init.body === 'string' ? init.body : undefined;
      const path = new URL(url).pathname.replace(/^\/api\/v\d+/, '');
      const method = init.method ?? 'GET';
      if (path.startsWith('/interactions/') && path.endsWith('/callback')) {
        const id = path.split('/')[2]!;
        this.callbackCount++;
        const record = { at, raw };
        const waiter = this.waiters.get(id);
        if (waiter) {
          this.waiters.delete(id);
          waiter(record);
        } else {
          this.callbacks.set(id, record);
        }
        return new Response(null, { status: 204 });
      }
      this.webhooks.push({ at, method, path: decodeURIComponent(path), raw });
      if (method === 'DELETE') return new Response(null, { status: 204 });
      if (path.startsWith('/webhooks/')) {
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        return Response.json(fakeMessage(body, (body.flags as number | undefined) ?? 0));
      }
      return Response.json({});
    },
  };

  /** Resolves with the interaction's acknowledgement. */
  callback(interactionId: string, timeoutMs = 30_000): Promise<CallbackRecord> {
    const seen = this.callbacks.get(interactionId);
    if (seen) {
      this.callbacks.delete(interactionId);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(interactionId);
        reject(new Error(`interaction ${interactionId} was not acknowledged within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(interactionId, (record) => {
        clearTimeout(timer);
        resolve(record);
      });
    });
  }
}

/** Hands a raw payload to discord.js exactly as the gateway would. */
export function dispatch(client: Client, raw: APIInteraction): void {
  (client as unknown as { actions: { InteractionCreate: { handle(d: unknown): void } } }).actions.InteractionCreate.handle(raw);
}

/** Who sends an interaction (a guild is required here: every scenario acts in one). */
export interface Invoker {
  guildId: string;
  userId: string;
  permissions?: string;
  locale?: string;
}
