/**
 * INTERACTIONS_MODE=http start-up: no gateway login. The bot token still authenticates REST
 * calls, and GET /applications/@me proves both the token and DISCORD_PUBLIC_KEY before the
 * endpoint opens: a key from another application would make every request fail its signature
 * check, which Discord reports to the operator only as "the endpoint did not validate".
 */
import { Routes, type Client } from 'discord.js';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { startInteractionsServer, type InteractionsServer } from './interactions-server.js';
import type { InitialResponses } from './initial-response.js';
import { MemorySeenInteractions, type SeenInteractions } from './replay.js';
import { publicKeyFromHex } from './signature.js';

const ApplicationSchema = z.looseObject({ id: z.string(), verify_key: z.string().optional() });

interface HttpTransportOptions {
  client: Client;
  token: string;
  publicKeyHex: string;
  host: string;
  port: number;
  responses: InitialResponses;
  dispatch(raw: Record<string, unknown>): boolean;
  logger: Logger;
  /** Interaction ids already received; shared by the replicas when they share Redis. */
  seen?: SeenInteractions;
}

export class PublicKeyMismatchError extends Error {
  override name = 'PublicKeyMismatchError';
}

export async function startHttpTransport(opts: HttpTransportOptions): Promise<InteractionsServer> {
  opts.client.rest.setToken(opts.token);
  const application = ApplicationSchema.parse(await opts.client.rest.get(Routes.currentApplication()));
  if (application.verify_key !== undefined && application.verify_key.toLowerCase() !== opts.publicKeyHex.toLowerCase()) {
    throw new PublicKeyMismatchError(
      `DISCORD_PUBLIC_KEY is not the public key of application ${application.id} (the one DISCORD_TOKEN belongs to): copy it from Developer Portal → General Information → Public Key`,
    );
  }
  return startInteractionsServer({
    host: opts.host,
    port: opts.port,
    publicKey: publicKeyFromHex(opts.publicKeyHex),
    seen: opts.seen ?? new MemorySeenInteractions(),
    responses: opts.responses,
    dispatch: opts.dispatch,
    logger: opts.logger,
  });
}
