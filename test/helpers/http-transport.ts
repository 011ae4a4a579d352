/**
 * The HTTP-interactions transport for the bot harness: each raw interaction is signed with a
 * test Ed25519 key and POSTed to a real interactions endpoint on 127.0.0.1, which verifies it and
 * hands it to discord.js and the router, as INTERACTIONS_MODE=http does. The first response
 * comes back as the HTTP answer; a copy of that callback is recorded like the gateway path's REST
 * callback, so the same assertions read both transports.
 *
 * The transport of the whole suite is FEEDBOT_TEST_TRANSPORT (`gateway` by default); the
 * `bot-http` vitest project runs test/bot with `http`.
 */
import { request } from 'undici';
import type { APIInteraction } from 'discord-api-types/v10';
import type { Interaction } from 'discord.js';
import { InteractionSigner, signInteraction } from '@feedbot/discord-emulator/testing';
import type { InitialResponses } from '../../src/http/initial-response.js';
import { startInteractionsServer, type InteractionsServer } from '../../src/http/interactions-server.js';
import { MemorySeenInteractions } from '../../src/http/replay.js';
import { publicKeyFromHex } from '../../src/http/signature.js';
import { silentLogger } from '../../src/logger.js';

export type Transport = 'gateway' | 'http';

export const TEST_TRANSPORT: Transport = process.env.FEEDBOT_TEST_TRANSPORT === 'http' ? 'http' : 'gateway';

const CALLBACK = /\/interactions\/\d+\/[^/]+\/callback$/;

type MakeRequest = NonNullable<Parameters<InitialResponses['wrap']>[0]>;

/** discord.js's makeRequest for HTTP mode: first responses answered locally, and recorded too. */
export function mirroredInitialResponses(responses: InitialResponses, recorded: MakeRequest): MakeRequest {
  const initial = responses.wrap(recorded);
  return async (url, init) => {
    if (init.method === 'POST' && CALLBACK.test(new URL(url).pathname)) void recorded(url, init);
    return initial(url, init);
  };
}

export interface HttpTransport {
  /** Signs and POSTs the interaction; resolves once the router is done with it. */
  run(raw: APIInteraction): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpTransportForTests(opts: {
  responses: InitialResponses;
  /** discord.js's Interaction for a raw payload, routed; the promise ends with the router's work. */
  handle(raw: APIInteraction): { interaction: Interaction; done: Promise<void> };
}): Promise<HttpTransport> {
  const signer = new InteractionSigner();
  const handling = new Map<string, Promise<void>>();
  const server: InteractionsServer = await startInteractionsServer({
    host: '127.0.0.1',
    port: 0,
    publicKey: publicKeyFromHex(signer.publicKey),
    seen: new MemorySeenInteractions(),
    responses: opts.responses,
    dispatch: (raw) => {
      handling.set(String(raw.id), opts.handle(raw as unknown as APIInteraction).done);
      return true;
    },
    logger: silentLogger(),
  });
  return {
    async run(raw) {
      const { body, headers } = signInteraction(signer.privateKey, raw);
      const res = await request(`${server.url}/interactions`, { method: 'POST', body, headers });
      await res.body.dump();
      const done = handling.get(raw.id);
      handling.delete(raw.id);
      if (!done) throw new Error(`the endpoint did not dispatch interaction ${raw.id} (HTTP ${res.statusCode})`);
      await done;
    },
    close: () => server.close(),
  };
}
