/**
 * Confirmations (a question with buttons, answered by a later press), by the id of the
 * interaction that asked: what each is about, kept in the services' pending store (not in the
 * custom_id, which has room for 100 characters only; shared by the replicas with REDIS_URL, since
 * the press may reach another replica than the question). /feed delete, bulk delete, /feed
 * import, /feedbot forget and the settings panel each keep one kind.
 */
import type { ZodType } from 'zod';
import type { HandlerContext } from './context.js';
import { ConfirmationsUnavailableError, type PendingStore } from './pending.js';
import type { Logger } from '../logger.js';

const DEFAULT_CONFIRM_TTL_MS = 60_000;
/**
 * A stored value outlives its confirmation by this much: the asking process's timer must still
 * find it, and take it, to show "expired". Presses check the expiry in their custom_id.
 */
const STORE_GRACE_MS = 30_000;
/** A press's work (bulk delete, import) ends within its token's 15 minutes: a mark left by a replica that died mid-run lapses then. */
const CLAIM_TTL_MS = 15 * 60_000;

/** How long a confirmation stays valid (`confirmTtlMs`, default 60 s), and the moment that is. */
export function confirmationExpiry(ctx: HandlerContext): { ttl: number; expires: Date } {
  const ttl = ctx.services.confirmTtlMs ?? DEFAULT_CONFIRM_TTL_MS;
  return { ttl, expires: new Date(ctx.now() + ttl) };
}

/** A press's hold on its confirmation while its work runs (another press, on any replica, is refused meanwhile). */
interface Claim {
  /** Never throws: a mark that cannot be released lapses by itself. */
  release(): Promise<void>;
}

/**
 * One kind of confirmation (`kind` namespaces its keys, the guild and the asking interaction name each): values written as JSON and checked with
 * `schema` when read back. Store failures reach the user as ConfirmationsUnavailableError.
 */
export class PendingConfirmations<T> {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly kind: string,
    private readonly schema: ZodType<T>,
  ) {}

  /**
   * Stores `value` where every replica finds it, then arms this process's timer: after `ttlMs`,
   * `onExpiry` runs if no press (on any replica) took the value meanwhile.
   */
  async start(ctx: HandlerContext, asked: string, value: T, ttlMs: number, onExpiry: () => void): Promise<void> {
    const { pending, logger } = ctx.services;
    const key = this.key(ctx, asked);
    await this.guard(ctx, 'put', () => pending.put(key, JSON.stringify(value), ttlMs + STORE_GRACE_MS));
    this.stopTimer(key);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      void this.expire(pending, logger, key, onExpiry);
    }, ttlMs);
    timer.unref?.();
    this.timers.set(key, timer);
  }

  /**
   * What the confirmation was about, taken: a confirmation is answered once across the replicas,
   * and its timer here (if this process asked) is released. Undefined when it expired, was
   * answered already, was asked before a restart without a shared store, or does not read back.
   */
  async take(ctx: HandlerContext, asked: string | undefined): Promise<T | undefined> {
    if (asked === undefined) return undefined;
    const key = this.key(ctx, asked);
    const json = await this.guard(ctx, 'take', () => ctx.services.pending.take(key));
    this.stopTimer(key);
    return json === undefined ? undefined : this.read(ctx.services.logger, json);
  }

  /** Marks the confirmation as being carried out by this press; undefined when another press holds it. */
  async claim(ctx: HandlerContext, asked: string): Promise<Claim | undefined> {
    const { pending, logger } = ctx.services;
    const [key, owner] = [this.key(ctx, asked), ctx.interaction.id];
    if (!(await this.guard(ctx, 'claim', () => pending.claim(key, owner, CLAIM_TTL_MS)))) return undefined;
    return {
      release: () =>
        pending.release(key, owner).catch((error: unknown) => logger.warn({ err: error, confirmation: this.kind }, 'could not release a running confirmation; it lapses by itself')),
    };
  }

  /**
   * On shutdown: confirmations left open stay answerable (by another replica, with a shared
   * store) until their custom_id's expiry; their buttons stay too, and their stored value lapses.
   */
  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** "Expired" only for a confirmation nobody answered: taking it first means a press elsewhere cannot answer it after. */
  private async expire(pending: PendingStore, logger: Logger, key: string, onExpiry: () => void): Promise<void> {
    let json: string | undefined;
    try {
      json = await pending.take(key);
    } catch (error) {
      // Unknown whether a press elsewhere answered it (its message may show progress): left as is.
      logger.warn({ err: error, confirmation: this.kind }, 'could not tell whether an expired confirmation was answered; its message is left as it is');
      return;
    }
    if (json !== undefined) onExpiry();
  }

  private read(logger: Logger, json: string): T | undefined {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      value = undefined;
    }
    const checked = this.schema.safeParse(value);
    if (checked.success) return checked.data;
    logger.warn({ confirmation: this.kind, issues: checked.error.issues.length }, 'a stored confirmation did not read back; answered as expired');
    return undefined;
  }

  private async guard<R>(ctx: HandlerContext, op: 'put' | 'take' | 'claim', work: () => Promise<R>): Promise<R> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ConfirmationsUnavailableError) {
        ctx.services.logger.warn({ confirmation: this.kind, op }, 'the confirmation store did not answer; the user is asked to try again');
      }
      throw error;
    }
  }

  /**
   * The question's key: its kind, the guild it was asked in and the asking interaction. The guild
   * is part of it so that a press is matched to a question of its own guild only: a custom_id
   * carried into another guild finds nothing there (answered as expired), and the question stays
   * usable where it was asked.
   */
  private key(ctx: HandlerContext, asked: string): string {
    return `${this.kind}:${ctx.guildId()}:${asked}`;
  }

  private stopTimer(key: string): void {
    const timer = this.timers.get(key);
    if (timer) clearTimeout(timer);
    this.timers.delete(key);
  }
}
