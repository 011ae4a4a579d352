/**
 * The per-key rate gate shared by every replica through Redis: the same rules as the in-memory
 * gate (rate-gate.ts), run as Lua scripts on one state per key (gate-scripts.ts), so N replicas
 * together never send a request into a window the API has declared spent, and reserve units
 * against one budget instead of N.
 *
 * Waiting for a key's first answer polls (waiting-room.ts): that answer may land on any replica.
 *
 * When Redis does not answer (redis-link.ts: logged once, never fatal), this replica falls back
 * to its own in-memory gate: it keeps admitting requests against what it alone learns, and a 429
 * whose release could not reach Redis is recorded there too and refuses this replica's requests
 * until its reset, even after Redis is back.
 */
import { randomUUID } from 'node:crypto';
import { RATE_LIMIT_WINDOW_MS } from '@feedbot/feed-api-contract';
import { resetFor429, unknownBudget, type GateDecision, type GatePermit, type GateSnapshot, type RateGate, type SharedGateOptions } from '../api/gate.js';
import { MemoryRateGate } from '../api/rate-gate.js';
import { parseRemaining, parseReset, type HeaderBag } from '../api/rate-headers.js';
import { FORGET, RELEASE, RESERVE, SNAPSHOT } from './gate-scripts.js';
import type { LuaScript, RedisLink } from './redis-link.js';
import { WaitingRoom } from './waiting-room.js';

interface RedisRateGateOptions extends SharedGateOptions {
  link: RedisLink;
  /** Prefix of every key this gate writes (several bots on one server). Default `feedbot`. */
  namespace?: string;
  /** How often a waiting replica asks again whether a key's first answer has landed. Default 25. */
  pollMs?: number;
}

/**
 * How long a key's state outlives its window, refusal and reservations: a key used again within
 * this keeps the budget it showed (a full new window then lets its larger burst out at once).
 */
const IDLE_MARGIN_MS = RATE_LIMIT_WINDOW_MS;

const WAIT = 'wait';

export class RedisRateGate implements RateGate {
  private readonly link: RedisLink;
  private readonly now: () => number;
  private readonly reservationTtlMs: number;
  private readonly namespace: string;
  private readonly room: WaitingRoom;
  /** This replica's own gate: used while Redis does not answer; holds the 429s Redis missed. */
  private readonly local: MemoryRateGate;
  private scriptsInFlight = 0;

  constructor(opts: RedisRateGateOptions) {
    this.link = opts.link;
    this.now = opts.now;
    this.reservationTtlMs = opts.reservationTtlMs;
    this.namespace = opts.namespace ?? 'feedbot';
    this.room = new WaitingRoom(opts.pollMs ?? 25);
    this.local = new MemoryRateGate({ now: opts.now });
  }

  async acquire(keyHash: string): Promise<GateDecision> {
    const held = this.local.refusedUntil(keyHash);
    if (held) return { ok: false, resetAt: held };
    for (let scout = false; ; ) {
      const decision = await this.link.attempt(
        () => this.reserve(keyHash),
        () => this.local.acquire(keyHash),
      );
      if (decision !== WAIT) {
        // The scout found the first answer landed (elsewhere): the others re-evaluate now.
        if (scout) this.room.wakeAll(keyHash);
        return decision;
      }
      scout = (await this.room.wait(keyHash)) === 'tick';
    }
  }

  snapshot(keyHash: string): Promise<GateSnapshot> {
    if (this.local.refusedUntil(keyHash)) return this.local.snapshot(keyHash);
    return this.link.attempt(
      async () => budgetOf(await this.run(SNAPSHOT, keyHash, [this.now(), IDLE_MARGIN_MS])),
      () => this.local.snapshot(keyHash),
    );
  }

  async forget(keyHash: string): Promise<void> {
    await this.local.forget(keyHash);
    await this.link.attempt(
      () => this.run(FORGET, keyHash, [this.now(), IDLE_MARGIN_MS]),
      () => undefined,
    );
    this.room.wakeAll(keyHash);
  }

  resetFor429(headers: HeaderBag): Date {
    return resetFor429(headers, this.now());
  }

  /** Scripts sent and not answered yet (tests wait for 0 before looking at who waits). */
  get busy(): number {
    return this.scriptsInFlight;
  }

  private async reserve(keyHash: string): Promise<GateDecision | typeof WAIT> {
    const id = randomUUID();
    const now = this.now();
    const reply = await this.run(RESERVE, keyHash, [now, IDLE_MARGIN_MS, id, now + this.reservationTtlMs]);
    const [code, value] = numbers(reply);
    if (code === 1) return { ok: true, permit: this.permit(keyHash, id, value ?? 0) };
    if (code === 0 && value !== undefined) return { ok: false, resetAt: new Date(value) };
    if (code === 2) return WAIT;
    throw new Error('unexpected reply from the rate gate script');
  }

  private permit(keyHash: string, id: string, refusals: number): GatePermit {
    let released: Promise<GateSnapshot> | undefined;
    return { release: (headers, status) => (released ??= this.release(keyHash, id, refusals, headers, status)) };
  }

  private async release(keyHash: string, id: string, refusals: number, headers: HeaderBag | undefined, status: number | undefined): Promise<GateSnapshot> {
    const now = this.now();
    try {
      return await this.link.attempt(
        async () => budgetOf(await this.run(RELEASE, keyHash, [now, IDLE_MARGIN_MS, id, refusals, ...answerArgs(headers, status, now)])),
        () => (status === 429 ? this.local.noteRefusal(keyHash, headers ?? {}) : unknownBudget()),
      );
    } finally {
      // Whoever waited on this replica re-evaluates at once (other replicas at their next tick).
      this.room.wakeAll(keyHash);
    }
  }

  private async run(script: LuaScript, keyHash: string, args: Array<string | number>): Promise<unknown> {
    const state = `${this.namespace}:gate:{${keyHash}}`;
    this.scriptsInFlight++;
    try {
      return await this.link.run(script, [state, `${state}:flight`], args);
    } finally {
      this.scriptsInFlight--;
    }
  }
}

/** What an answer tells the release script: see RELEASE in gate-scripts.ts. */
function answerArgs(headers: HeaderBag | undefined, status: number | undefined, now: number): string[] {
  if (status === 429) return ['429', String(Math.max(resetFor429(headers ?? {}, now).getTime(), now)), ''];
  if (!headers) return ['none', '', ''];
  return ['learn', String(parseRemaining(headers) ?? ''), String(parseReset(headers, now) ?? '')];
}

function numbers(reply: unknown): number[] {
  if (!Array.isArray(reply) || !reply.every((n) => typeof n === 'number')) throw new Error('unexpected reply from the rate gate script');
  return reply as number[];
}

function budgetOf(reply: unknown): GateSnapshot {
  const [remaining, resetAt] = numbers(reply);
  if (remaining === undefined || resetAt === undefined || remaining < 0 || resetAt < 0) return unknownBudget();
  return { remaining, resetAt: new Date(resetAt) };
}
