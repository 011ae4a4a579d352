/**
 * Faults a test may switch on in the REST API, for the storm (test/storm): a share of the bot's
 * calls answered 500, or 429 as Discord's per-route limits answer (`retry_after` in the body and
 * the headers). They strike only the calls that answer interactions and post messages (callbacks,
 * webhook edits and follow-ups, channel messages), never logging in or deploying commands, and
 * a 429 never an interaction callback (Discord does not rate-limit those; a 500 it may send).
 * Off by default: no rule, nothing changes.
 */
import { z } from 'zod';

export const RestFaultRuleSchema = z
  .object({
    kind: z.enum(['error', 'rate_limited']),
    probability: z.number().min(0).max(1),
    /** `rate_limited`: the wait announced, in ms (Discord sends seconds with decimals). */
    retryAfterMs: z.number().int().min(1).max(60_000).default(500),
  })
  .strict();
export type RestFaultRule = z.infer<typeof RestFaultRuleSchema>;

export interface RestFault {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** `segments` below `/api/vN`: which family of call it is, or undefined for calls never faulted. */
function family(segments: readonly string[]): 'callback' | 'message' | undefined {
  if (segments[0] === 'interactions' && segments[3] === 'callback') return 'callback';
  if (segments[0] === 'webhooks') return 'message';
  if (segments[0] === 'channels' && segments[2] === 'messages') return 'message';
  return undefined;
}

export class RestFaults {
  private rules: RestFaultRule[] = [];
  private readonly counts = new Map<string, number>();

  constructor(private random: () => number = Math.random) {}

  set(rules: readonly z.input<typeof RestFaultRuleSchema>[], random?: () => number): void {
    this.rules = rules.map((r) => RestFaultRuleSchema.parse(r));
    if (random) this.random = random;
  }

  clear(): void {
    this.rules = [];
  }

  /** What to answer instead of handling this call, if a rule strikes it. */
  pick(segments: readonly string[]): RestFault | undefined {
    const kind = family(segments);
    if (kind === undefined || this.rules.length === 0) return undefined;
    for (const rule of this.rules) {
      if (rule.kind === 'rate_limited' && kind === 'callback') continue;
      if (this.random() >= rule.probability) continue;
      this.counts.set(rule.kind, (this.counts.get(rule.kind) ?? 0) + 1);
      if (rule.kind === 'error') return { status: 500, headers: {}, body: { message: '500: Internal Server Error', code: 0 } };
      const seconds = rule.retryAfterMs / 1000;
      return {
        status: 429,
        headers: {
          'retry-after': String(Math.ceil(seconds)),
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset-after': String(seconds),
          'x-ratelimit-bucket': 'storm-injected',
          'x-ratelimit-scope': 'user',
        },
        body: { message: 'You are being rate limited.', retry_after: seconds, global: false },
      };
    }
    return undefined;
  }

  /** Faults injected so far, by kind. */
  injected(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}
