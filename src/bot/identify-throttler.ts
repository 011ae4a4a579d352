/**
 * Discord lets one shard per identify bucket (`shard_id % max_concurrency`) identify every 5 s.
 * discord.js's own throttler starts those 5 s when its turn begins, before the IDENTIFY is on the
 * wire, so a first IDENTIFY that took a little longer to send can leave the next one of its
 * bucket a few milliseconds short, and Discord answers op 9 (session invalidated): that shard
 * then waits another window and spends another of the day's session starts. Bench scenario 9 saw
 * it in 10 of 18 starts, 3–77 ms short. This throttler keeps the same rule with a margin.
 *
 * The rule is Discord's per application, not per process: two processes started together (a
 * deploy that overlaps old and new, two hosts' shard ranges, a restart beside a running copy)
 * each spaced their own identifies and met in the same 5 s, and one got op 9. So a bucket's turn
 * is also claimed in the store the processes share (src/leases/) for the same spacing; a store
 * that does not answer within a second leaves the rule to this process alone, as before.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientOptions } from 'discord.js';
import type { SlotLease } from '../leases/lease.js';
import { within } from '../within.js';

/** The shared store, once it is open (undefined: none, or it could not be opened). */
export type SharedIdentifyLease = () => Promise<SlotLease | undefined>;

/** How long the shared store may take to answer a claim before this process goes alone. */
const SHARED_ANSWER_MS = 1_000;
/**
 * How long the first identify waits for the stores to open (the login runs beside them, and the
 * lease opens after the key store) before going alone. A second is too short: a process started
 * beside another then identified without claiming its turn, and the other, claiming a free turn,
 * met it in Discord's 5 s (seen by the storm, same-shard on Redis).
 */
const SHARED_OPEN_MS = 5_000;
/** How often a process whose bucket another holds asks again. */
const SHARED_RETRY_MS = 250;

/** Discord's identify window, plus what covers the send delay. */
const IDENTIFY_SPACING_MS = 5_000 + 500;

export class IdentifyThrottler {
  private readonly queues = new Map<number, Promise<unknown>>();
  private readonly nextAllowedAt = new Map<number, number>();

  constructor(
    private readonly maxConcurrency: number,
    private readonly spacingMs = IDENTIFY_SPACING_MS,
    private readonly now: () => number = Date.now,
    private readonly shared?: SharedIdentifyLease,
    private readonly sharedOpenMs = SHARED_OPEN_MS,
  ) {}

  /** Resolves when `shardId` may identify; shards of one bucket go one at a time, spaced. */
  waitForIdentify(shardId: number, signal: AbortSignal): Promise<void> {
    const bucket = shardId % this.maxConcurrency;
    const turn = (this.queues.get(bucket) ?? Promise.resolve()).then(async () => {
      const wait = (this.nextAllowedAt.get(bucket) ?? 0) - this.now();
      if (wait > 0) await sleep(wait, undefined, { signal });
      await this.sharedTurn(bucket, signal);
      this.nextAllowedAt.set(bucket, this.now() + this.spacingMs);
    });
    // An aborted wait (the shard was destroyed) must not block the ones queued behind it.
    this.queues.set(
      bucket,
      turn.catch(() => undefined),
    );
    return turn;
  }

  /** Waits until this process holds the bucket's turn in the shared store, or the store is not there to ask. */
  private async sharedTurn(bucket: number, signal: AbortSignal): Promise<void> {
    const lease = this.shared ? await within(this.shared().catch(() => undefined), this.sharedOpenMs) : undefined;
    if (!lease) return;
    // A store that fails or does not answer is asked again for a second (a fresh Redis client
    // refuses claims until it has connected), then the turn is this process's alone.
    let unansweredSince: number | undefined;
    for (;;) {
      const won = await within(
        lease.claim(`identify:${bucket}`, this.spacingMs).catch(() => undefined),
        SHARED_ANSWER_MS,
      );
      if (won === true) return;
      if (won === undefined) {
        unansweredSince ??= this.now();
        if (this.now() - unansweredSince >= SHARED_ANSWER_MS) return;
      } else unansweredSince = undefined;
      await sleep(SHARED_RETRY_MS, undefined, { signal });
    }
  }
}

type WsOptions = NonNullable<ClientOptions['ws']>;

/** The discord.js client option: max_concurrency as Discord gives it in GET /gateway/bot; `shared`, the store other processes use. */
export function identifyThrottlerBuilder(shared?: SharedIdentifyLease): NonNullable<WsOptions['buildIdentifyThrottler']> {
  return async (manager) => {
    const info = await manager.fetchGatewayInformation();
    return new IdentifyThrottler(info.session_start_limit.max_concurrency, IDENTIFY_SPACING_MS, Date.now, shared);
  };
}
