/**
 * What Discord tells a bot about sharding (GET /gateway/bot): the recommended shard count and
 * `max_concurrency`, how many shards may identify at once. The manager reads it once at start.
 */
import { REST, Routes } from 'discord.js';
import { z } from 'zod';

const GatewayBotSchema = z.object({
  shards: z.number().int().min(1),
  session_start_limit: z.object({
    max_concurrency: z.number().int().min(1),
    remaining: z.number().int().min(0),
    reset_after: z.number().int().min(0),
  }),
});

interface GatewayBot {
  recommendedShards: number;
  maxConcurrency: number;
  /** Identifies left before Discord refuses new sessions until `resetAfterMs`. */
  sessionStartsRemaining: number;
  resetAfterMs: number;
}

export async function fetchGatewayBot(token: string, apiUrl: string | undefined): Promise<GatewayBot> {
  const rest = new REST(apiUrl ? { api: apiUrl } : {}).setToken(token);
  const parsed = GatewayBotSchema.safeParse(await rest.get(Routes.gatewayBot()));
  if (!parsed.success) throw new Error('GET /gateway/bot answered with an unexpected shape');
  const { shards, session_start_limit: limit } = parsed.data;
  return { recommendedShards: shards, maxConcurrency: limit.max_concurrency, sessionStartsRemaining: limit.remaining, resetAfterMs: limit.reset_after };
}
