/**
 * What the storm's users were told, and the invariants that must hold between that, what Discord
 * saw and what the feed API holds. Plain data in, violations out: the checks are tested on their
 * own (ledger.test.ts) with records that must and must not pass.
 */
import type { APIMessage } from 'discord-api-types/v10';
import type { InteractionSnapshot } from '@feedbot/discord-emulator';

export interface StormViolation {
  invariant: string;
  detail: string;
}

/** An interaction a storm actor sent, and what became of it. */
export interface Delivery {
  action: string;
  guildId: string;
  sentAt: number;
  snapshot: InteractionSnapshot;
  /** The last message, once it was no longer "thinking…" (undefined: it never was). */
  final: APIMessage | undefined;
}

/** What a user was told a create or delete did. `check`: told it may have happened and to look. */
export type WriteOutcome = 'done' | 'refused' | 'check' | 'unanswered';

export interface CreateClaim {
  guildId: string;
  /** Unique per create in a storm: two feeds with it are a create done twice. */
  account: string;
  outcome: WriteOutcome;
  id?: number;
  interactionId: string;
  at: number;
}

export interface DeleteClaim {
  guildId: string;
  id: number;
  outcome: WriteOutcome;
  /** What the user read, for the report. */
  told?: string;
  interactionId: string;
  at: number;
}

/** When a process was killed (SIGKILL): work in flight then may be lost without an answer. */
export interface Excuses {
  kills: number[];
  /** Before and after a kill, the window in which an interaction may go unanswered. */
  windowMs: number;
  /**
   * When two processes on one shard could not claim interactions (the shared store down, or
   * reconnecting): each answers alone, by design (docs/RELIABILITY.md), so both may answer and
   * Discord refuses the second (40060). Empty for the other shapes.
   */
  claimOutages?: { from: number; to: number }[];
}

export const excused = (at: number, e: Excuses): boolean => e.kills.some((k) => at >= k - e.windowMs && at <= k + e.windowMs);

/** Sent while claims could not be made: a second answer is the documented trade-off, not a defect. */
export const duringClaimOutage = (at: number, e: Excuses): boolean => (e.claimOutages ?? []).some((w) => at >= w.from && at <= w.to);

/** Discord's deadline for the first response. */
export const ACK_DEADLINE_MS = 3_000;
const LOADING = 1 << 7;

/**
 * Every interaction delivered was acknowledged once, within 3 s, and ended with an answer that is
 * not "thinking…" — unless a process was killed around it. Not delivered (no session held its
 * shard, over the gateway): nothing a bot could do, and not counted.
 */
export function checkDeliveries(deliveries: readonly Delivery[], e: Excuses, transport: 'gateway' | 'http'): StormViolation[] {
  const out: StormViolation[] = [];
  for (const d of deliveries) {
    const s = d.snapshot;
    const where = `${d.action} ${s.id} (guild ${d.guildId})`;
    if (s.callbacks > 1 && !duringClaimOutage(d.sentAt, e)) out.push({ invariant: 'answered once', detail: `${where}: ${s.callbacks} initial responses` });
    if (transport === 'gateway' && s.dispatchedTo.length === 0) continue;
    if (excused(d.sentAt, e)) continue;
    if (s.state !== 'acknowledged' || !s.ack) {
      out.push({ invariant: 'acknowledged within 3 s', detail: `${where}: ${s.state}, errors ${JSON.stringify(s.errors)}` });
      continue;
    }
    if (s.ack.elapsedMs > ACK_DEADLINE_MS) out.push({ invariant: 'acknowledged within 3 s', detail: `${where}: after ${s.ack.elapsedMs} ms` });
    // A modal is an answer; what the modal's submit gets is checked on its own delivery.
    if (s.ack.type === 9) continue;
    if (!d.final || ((d.final.flags ?? 0) & LOADING) !== 0) out.push({ invariant: 'a final answer', detail: `${where}: still "thinking…" or no message` });
  }
  return out;
}

/**
 * No write lost or doubled. For each create (each with an account of its own): two feeds with its
 * account are a double; one reported done must exist with its id unless a delete aimed at it; one
 * reported refused must not exist. For each delete: reported done, the feed is gone; reported
 * refused, it is still there (unless another delete of it may have done it). `check` and
 * `unanswered` may go either way.
 */
export function checkWrites(
  creates: readonly CreateClaim[],
  deletes: readonly DeleteClaim[],
  feeds: ReadonlyMap<string, readonly { id: number; cuenta: string }[]>,
  /** Writes two processes both carried out during a claim outage: what the user read is one of two answers. */
  answeredTwice: ReadonlySet<string> = new Set(),
): StormViolation[] {
  const out: StormViolation[] = [];
  const deletedMaybe = new Set(deletes.filter((d) => d.outcome !== 'refused').map((d) => `${d.guildId}/${d.id}`));
  // A feed some delete aimed at: if it is gone, that delete's report is what is judged (below).
  const aimedAt = new Set(deletes.map((d) => `${d.guildId}/${d.id}`));
  for (const c of creates) {
    const held = (feeds.get(c.guildId) ?? []).filter((f) => f.cuenta.toLowerCase() === c.account.toLowerCase());
    if (held.length > 1) out.push({ invariant: 'no write doubled', detail: `create of ${c.account} (interaction ${c.interactionId}): ${held.length} feeds ${held.map((f) => f.id).join(', ')}` });
    if (c.outcome === 'done') {
      const key = `${c.guildId}/${c.id}`;
      const there = held.some((f) => f.id === c.id);
      if (!there && !aimedAt.has(key)) out.push({ invariant: 'no write lost', detail: `create of ${c.account} reported done as #${c.id} (interaction ${c.interactionId}), not in the API` });
    }
    if (c.outcome === 'refused' && held.length > 0 && !answeredTwice.has(c.interactionId)) {
      const gone = held.every((f) => deletedMaybe.has(`${c.guildId}/${f.id}`));
      if (!gone) out.push({ invariant: 'told what happened', detail: `create of ${c.account} reported not done (interaction ${c.interactionId}), but feed #${held[0]!.id} exists` });
    }
  }
  for (const d of deletes) {
    const held = (feeds.get(d.guildId) ?? []).some((f) => f.id === d.id);
    if (d.outcome === 'done' && held) out.push({ invariant: 'no write lost', detail: `delete of #${d.id} reported done (interaction ${d.interactionId}), still in the API` });
    if (d.outcome === 'refused' && !held && !deletedMaybe.has(`${d.guildId}/${d.id}`) && !answeredTwice.has(d.interactionId)) {
      out.push({ invariant: 'told what happened', detail: `delete of #${d.id} reported not done (interaction ${d.interactionId}: ${d.told ?? '?'}), but the feed is gone` });
    }
  }
  return out;
}

/**
 * Each audit post once: the same title twice in one audit channel is a change posted twice. Give
 * it the titles that name one change (a feed created or deleted names its id), not those that
 * may rightly repeat (a second forget).
 */
export function checkAuditOnce(titlesByGuild: ReadonlyMap<string, readonly string[]>): StormViolation[] {
  const out: StormViolation[] = [];
  for (const [guildId, titles] of titlesByGuild) {
    const seen = new Map<string, number>();
    for (const t of titles) seen.set(t, (seen.get(t) ?? 0) + 1);
    for (const [title, n] of seen) if (n > 1) out.push({ invariant: 'audit posts once', detail: `guild ${guildId}: "${title}" posted ${n} times` });
  }
  return out;
}

/** No secret in anything a process wrote. */
export function checkSecrets(output: string, secrets: Iterable<string>): StormViolation[] {
  const out: StormViolation[] = [];
  for (const secret of secrets) if (secret.length >= 8 && output.includes(secret)) out.push({ invariant: 'no secret in any log', detail: `a secret ending …${secret.slice(-4)} in a process's output` });
  return out;
}
