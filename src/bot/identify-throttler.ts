/**
 * Discord lets one shard per identify bucket (`shard_id % max_concurrency`) identify every 5 s.
 * discord.js's own throttler starts those 5 s when its turn begins, before the IDENTIFY is on the
 * wire, so a first IDENTIFY that took a little longer to send can leave the next one of its
 * bucket a few milliseconds short, and Discord answers op 9 (session invalidated): that shard
 * then waits another window and spends another of the day's session starts. Bench scenario 9 saw
 * it in 10 of 18 starts, 3–77 ms short. This throttler keeps the same rule with a margin.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientOptions } from 'discord.js';

/** Discord's identify window, plus what covers the send delay. */
const IDENTIFY_SPACING_MS = 5_000 + 500;

export class IdentifyThrottler {
  private readonly queues = new Map<number, Promise<unknown>>();
  private readonly nextAllowedAt = new Map<number, number>();

  constructor(
    private readonly maxConcurrency: number,
    private readonly spacingMs = IDENTIFY_SPACING_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when `shardId` may identify; shards of one bucket go one at a time, spaced. */
  waitForIdentify(shardId: number, signal: AbortSignal): Promise<void> {
    const bucket = shardId % this.maxConcurrency;
    const turn = (this.queues.get(bucket) ?? Promise.resolve()).then(async () => {
      const wait = (this.nextAllowedAt.get(bucket) ?? 0) - this.now();
      if (wait > 0) await sleep(wait, undefined, { signal });
      this.nextAllowedAt.set(bucket, this.now() + this.spacingMs);
    });
    // An aborted wait (the shard was destroyed) must not block the ones queued behind it.
    this.queues.set(
      bucket,
      turn.catch(() => undefined),
    );
    return turn;
  }
}

type WsOptions = NonNullable<ClientOptions['ws']>;

/** The discord.js client option: max_concurrency as Discord gives it in GET /gateway/bot. */
export const buildIdentifyThrottler: NonNullable<WsOptions['buildIdentifyThrottler']> = async (manager) => {
  const info = await manager.fetchGatewayInformation();
  return new IdentifyThrottler(info.session_start_limit.max_concurrency);
};
