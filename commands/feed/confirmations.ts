/**
 * The open delete confirmations of one running bot, by the id of the interaction that asked:
 * what each one is about (kept here, not in the custom_id, which has room for 100 characters
 * only) and the timer that takes its buttons away when it expires (components never do).
 */
import type { ChatInputCommandInteraction } from 'discord.js';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import type { FeedSummary } from '../../src/audit/events.js';
import type { HandlerContext } from '../../src/bot/context.js';
import { confirmationExpiredEmbed } from '../../src/render/delete.js';

const DEFAULT_CONFIRM_TTL_MS = 60_000;

/** How long a confirmation stays valid (`confirmTtlMs`, default 60 s), and the moment that is. */
export function confirmationExpiry(ctx: HandlerContext): { ttl: number; expires: Date } {
  const ttl = ctx.services.confirmTtlMs ?? DEFAULT_CONFIRM_TTL_MS;
  return { ttl, expires: new Date(ctx.now() + ttl) };
}

/** What a confirmation remembers of a feed it asked about: what its audit post will say. */
export function feedSummary(feed: FeedListItem): FeedSummary {
  return { id: feed.id, cuenta: feed.cuenta, canalId: feed.canal, tipos: feed.tipos };
}

/** What an expired confirmation becomes: "expired", its buttons taken away. */
export function expireConfirmation(interaction: ChatInputCommandInteraction, ctx: HandlerContext): () => void {
  const t = ctx.t;
  return () => {
    void interaction
      .editReply({ embeds: [confirmationExpiredEmbed(t)], components: [] })
      .catch((error: unknown) => ctx.services.logger.debug({ err: error }, 'could not expire a delete confirmation'));
  };
}

export class PendingConfirmations<T> {
  private readonly open = new Map<string, { value: T; timer: NodeJS.Timeout }>();

  /** Keeps `value` for `ms`; then drops it and calls `onExpiry`. */
  start(key: string, value: T, ms: number, onExpiry: () => void): void {
    this.take(key);
    const timer = setTimeout(() => {
      this.open.delete(key);
      onExpiry();
    }, ms);
    timer.unref?.();
    this.open.set(key, { value, timer });
  }

  /**
   * What the confirmation was about, released with its timer: a press answers it once, and
   * nothing keeps the asking interaction alive after. Undefined when it expired, was answered
   * already, or was asked by another process (or before a restart).
   */
  take(key: string | undefined): T | undefined {
    if (key === undefined) return undefined;
    const entry = this.open.get(key);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.open.delete(key);
    return entry.value;
  }

  /** On shutdown: confirmations left open just expire by their custom_id. */
  dispose(): void {
    for (const { timer } of this.open.values()) clearTimeout(timer);
    this.open.clear();
  }
}
