/**
 * The first response to an HTTP interaction travels in the body of the HTTP answer to Discord's
 * POST, as Discord documents for the Interactions Endpoint URL. The commands do not know that:
 * they reply, defer or show a modal through discord.js, which sends the callback as a REST call
 * (POST /interactions/{id}/{token}/callback). This wraps discord.js's `makeRequest` and turns
 * that one call, for an interaction received over HTTP and still waiting for its answer, into
 * the HTTP answer; every other call (follow-ups, edits of @original) goes to Discord as usual.
 */
import type { RESTOptions } from 'discord.js';
import { restRequest } from '../bot/discord-client.js';

type MakeRequest = RESTOptions['makeRequest'];
type ResponseLike = Awaited<ReturnType<MakeRequest>>;

const CALLBACK_PATH = /\/interactions\/(\d{17,20})\/[^/]+\/callback$/;

/** The global Response is what discord.js reads; only the DOM and Node typings of its body differ. */
const asResponseLike = (response: Response) => response as unknown as ResponseLike;

/** What Discord says to a callback for an interaction it no longer waits for. */
function unknownInteraction(): ResponseLike {
  return asResponseLike(new Response(JSON.stringify({ message: 'Unknown interaction', code: 10062 }), { status: 404, headers: { 'content-type': 'application/json' } }));
}

interface Waiting {
  answer(body: unknown): void;
}

export class InitialResponses {
  private readonly waiting = new Map<string, Waiting>();

  /**
   * Waits for the interaction's first response; resolves with its JSON body, or undefined when
   * none came within `timeoutMs` (after which a late one is refused as Discord would).
   */
  expect(interactionId: string, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(interactionId);
        resolve(undefined);
      }, timeoutMs);
      this.waiting.set(interactionId, {
        answer: (body) => {
          clearTimeout(timer);
          this.waiting.delete(interactionId);
          resolve(body);
        },
      });
    });
  }

  get pending(): number {
    return this.waiting.size;
  }

  /**
   * discord.js's makeRequest, with the first callback of an HTTP interaction answered here. In
   * HTTP mode every interaction came over HTTP: a callback nobody waits for any more (answered
   * already, or past the deadline) gets the refusal Discord would give.
   */
  wrap(next: MakeRequest = restRequest): MakeRequest {
    return async (url, init) => {
      const id = init.method === 'POST' ? CALLBACK_PATH.exec(new URL(url).pathname)?.[1] : undefined;
      if (id === undefined) return next(url, init);
      const waiting = this.waiting.get(id);
      if (!waiting) return unknownInteraction();
      // Files would need a multipart answer; no command sends one with its first response.
      if (typeof init.body !== 'string') throw new Error('an HTTP interaction can only be answered with a JSON body');
      waiting.answer(JSON.parse(init.body));
      return asResponseLike(new Response(null, { status: 204 }));
    };
  }
}
