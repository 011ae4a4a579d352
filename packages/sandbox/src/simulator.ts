/**
 * "Forwards" generated posts for active feeds over time, so /feeds/{id}/posts and /stats move.
 * Paused feeds are skipped. Deterministic for a given seed and clock.
 */
import type { Logger } from './log.js';
import { seededRandom, type Clock, type Random } from './clock.js';
import { generatedPost, postCode } from './content.js';
import type { PostRecord } from './records.js';
import type { SandboxStore } from './store.js';

export interface SimulatorOptions {
  /** Chance that an active feed forwards a post on a tick (default 0.5). */
  probability?: number;
  seed?: number;
}

export interface TickOptions {
  /** Every active feed forwards exactly one post (tests, `simulate:tick --all`). */
  everyFeed?: boolean;
}

export class Simulator {
  private readonly random: Random;
  private readonly probability: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: SandboxStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: SimulatorOptions = {},
  ) {
    this.random = seededRandom(options.seed ?? 0x5eed);
    this.probability = options.probability ?? 0.5;
  }

  /** One round over the active feeds; returns the posts it forwarded. */
  async tick(options: TickOptions = {}): Promise<PostRecord[]> {
    const feeds = await this.store.listActiveFeeds();
    const now = this.clock.now();
    const created: PostRecord[] = [];
    for (const feed of feeds) {
      if (!options.everyFeed && this.random() >= this.probability) continue;
      const post = generatedPost(this.random, feed, now);
      try {
        await this.store.insertPost(post);
      } catch {
        // A code collision or a feed deleted meanwhile: retry once with a fresh code, else skip.
        post.code = postCode();
        await this.store.insertPost(post).catch(() => undefined);
        if (!(await this.store.getPostByCode(post.code))) continue;
      }
      created.push(post);
    }
    if (created.length > 0) this.logger.debug({ posts: created.length }, 'simulator forwarded posts');
    return created;
  }

  start(intervalMs: number): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => {
      this.running = this.tick().catch((err: unknown) => this.logger.warn({ err }, 'simulator tick failed'));
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a tick in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
