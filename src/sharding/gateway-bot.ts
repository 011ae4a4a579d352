/**
 * What Discord tells a bot about sharding (GET /gateway/bot): the recommended shard count,
 * `max_concurrency`, how many shards may identify at once, and the session start limit, how many
 * identifies are left before Discord refuses new sessions. The manager reads it at start and
 * before each rolling restart, and refuses to start processes whose identifies would exhaust it.
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

export interface GatewayBot {
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

/**
 * The one line that refuses to start `needed` shard processes (one identify each) when Discord's
 * session start limit has fewer left; undefined when there are enough. `what` names the action:
 * `start` (the manager's own start, or a new manager beside an old one to reshard) or `roll` (a
 * rolling restart, which starts a replacement for each shard process).
 */
export function sessionStartRefusal(
  gateway: Pick<GatewayBot, 'sessionStartsRemaining' | 'resetAfterMs'>,
  needed: number,
  what: 'start' | 'roll',
  now: number = Date.now(),
): string | undefined {
  const remaining = gateway.sessionStartsRemaining;
  if (needed <= remaining) return undefined;
  const seconds = Math.ceil(gateway.resetAfterMs / 1000);
  const resetsAt = new Date(now + gateway.resetAfterMs).toISOString();
  const action = what === 'start' ? 'start' : 'roll (restart)';
  return (
    `Refusing to ${action} ${needed} shard process${needed === 1 ? '' : 'es'}: ${needed === 1 ? 'it needs 1 identify' : `they need ${needed} identifies`}, ` +
    `but Discord's session start limit (GET /gateway/bot) has ${remaining} left until it resets in ${seconds} s, at ${resetsAt}. ` +
    `An identify past the limit gets no session: try again after the reset.`
  );
}
