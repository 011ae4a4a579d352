/**
 * Faults a test may switch on, for the storm (test/storm) and fault stories: the feed API slow,
 * failing, resetting the connection, answering garbage or 429 on a share of its API requests.
 *
 * A fault strikes either `before` the request is handled (nothing was done: the client hears a
 * failure for a request the API never ran) or `after` (the API did the work, then the answer was
 * lost or garbled): the second is what makes a client that retries a POST create a feed twice,
 * or a client that reports every failure as "not done" wrong.
 *
 * Off by default (no rule): the sandbox then behaves exactly as without this module. The sandbox's
 * own 429s (its limits refused a request) are counted apart from injected ones, so a test can
 * prove the bot never made one itself.
 */
import { z } from 'zod';

export const API_FAULT_KINDS = ['slow', 'error', 'reset', 'garbage', 'rate_limited'] as const;
export type ApiFaultKind = (typeof API_FAULT_KINDS)[number];

export const ApiFaultRuleSchema = z
  .object({
    kind: z.enum(API_FAULT_KINDS),
    /** Share of API requests it strikes, 0..1. */
    probability: z.number().min(0).max(1),
    /** `before`: the API does nothing; `after`: it does the work, then the answer fails. `slow` is always before. */
    phase: z.enum(['before', 'after']).default('before'),
    /** `slow`: how long the request waits before it is handled. */
    delayMs: z.number().int().min(0).max(120_000).default(0),
    /** `rate_limited`: the Retry-After it announces. */
    retryAfterSeconds: z.number().int().min(1).max(3_600).default(2),
  })
  .strict();
export type ApiFaultRule = z.infer<typeof ApiFaultRuleSchema>;
export type ApiFaultRuleInput = z.input<typeof ApiFaultRuleSchema>;

/** A body no JSON parser takes: what a misconfigured proxy in front of an API answers. */
export const GARBAGE_BODY = '<html><body><h1>502 Bad Gateway</h1></body></html>';

export class ApiFaults {
  private rules: ApiFaultRule[] = [];
  private readonly injectedCounts = new Map<string, number>();
  private readonly ownRateLimits = new Map<string, number>();

  /** `random` decides which requests a rule strikes: seeded in the storm, so a run replays. */
  constructor(private random: () => number = Math.random) {}

  /** Replaces every rule (an empty list switches faults off). Throws on a malformed rule. */
  set(rules: readonly ApiFaultRuleInput[], random?: () => number): void {
    this.rules = rules.map((r) => ApiFaultRuleSchema.parse(r));
    if (random) this.random = random;
  }

  clear(): void {
    this.rules = [];
  }

  get active(): readonly ApiFaultRule[] {
    return this.rules;
  }

  /**
   * The fault for one request, rolled once: at most one rule strikes it. Rules are tried in order,
   * each with its own probability.
   */
  pick(): ApiFaultRule | undefined {
    for (const rule of this.rules) {
      if (this.random() < rule.probability) {
        const name = rule.kind === 'slow' ? 'slow' : `${rule.kind}:${rule.phase}`;
        this.injectedCounts.set(name, (this.injectedCounts.get(name) ?? 0) + 1);
        return rule;
      }
    }
    return undefined;
  }

  /** Faults injected so far, by `kind:phase` (`slow` alone). */
  injected(): Record<string, number> {
    return Object.fromEntries(this.injectedCounts);
  }

  /** A 429 the sandbox's own limits sent (not an injected one), for the guild of the key. */
  recordOwnRateLimit(guildId: string | undefined): void {
    const key = guildId ?? 'no-key';
    this.ownRateLimits.set(key, (this.ownRateLimits.get(key) ?? 0) + 1);
  }

  /** 429s the sandbox's limits answered, per guild (`no-key` for callers without a valid key). */
  ownRateLimited(): Record<string, number> {
    return Object.fromEntries(this.ownRateLimits);
  }
}
