/**
 * Two gateway processes holding the same shard receive every interaction twice (Discord sends each
 * event to every session of a shard). Here each "process" is a whole bot harness (its own
 * discord.js client with REST captured, its own API client over undici MockAgent, its own key
 * store), and the two share one SQLite lease file as two `npm start` on one host share
 * DATABASE_URL. Counted across both: callbacks to Discord and requests to the feed API.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chatInput } from '../helpers/discord.js';
import { createBotHarness, rl, sampleStats, type BotHarness } from '../helpers/bot.js';
import { SqliteLease } from '../../src/leases/lease-sqlite.js';
import type { SlotLease } from '../../src/leases/lease.js';
import { MemoryLease } from '../../src/leases/lease-memory.js';
import { CLAIM_TTL_MS, leaseClaims, type ClaimRecord } from '../../src/interactions/claims.js';

const created = { id: 7, cuenta: 'nasa', canalId: '1300000000000000009', estado: 'activo', creado: '2026-11-21T10:00:00.000Z' };
const channel = { channel: { id: '1300000000000000009', name: 'space' } };

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** Two bot processes on one shard whose claims go through `leases` (one each). */
async function twoProcesses(leases: [SlotLease, SlotLease], timeoutMs?: number) {
  const bots: BotHarness[] = [];
  const claims: ClaimRecord[] = [];
  for (const lease of leases) {
    const h = await createBotHarness({ transport: 'gateway', claims: (logger) => leaseClaims(lease, { logger, ...(timeoutMs ? { timeoutMs } : {}) }) });
    cleanup.push(() => h.close());
    await h.setKey();
    h.router.onClaim((r) => claims.push(r));
    bots.push(h);
  }
  return { bots, claims };
}

async function sqliteLeases(): Promise<[SlotLease, SlotLease]> {
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-claims-'));
  const file = join(dir, 'shared.sqlite');
  const a = await SqliteLease.open(file);
  const b = await SqliteLease.open(file);
  cleanup.push(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return [a, b];
}

/** Both processes receive the same interaction at the same moment. */
async function deliverToBoth(bots: BotHarness[], raw: ReturnType<typeof chatInput>): Promise<void> {
  await Promise.all(bots.map((h) => h.run(raw)));
}

const total = (bots: BotHarness[], of: (h: BotHarness) => number) => bots.reduce((n, h) => n + of(h), 0);

describe('two processes on one shard, claims on a shared SQLite file', () => {
  it('one /stats delivered to both: one callback, one feed API request; the loser logs one debug line and nothing else', async () => {
    const { bots, claims } = await twoProcesses(await sqliteLeases());
    let requests = 0;
    for (const h of bots) h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(() => (requests++, { statusCode: 200, data: sampleStats(), responseOptions: { headers: rl() } })).persist();
    await deliverToBoth(bots, chatInput('stats', undefined));
    expect(total(bots, (h) => h.discord.callbacks().length)).toBe(1);
    expect(requests).toBe(1);
    expect(claims.map((c) => c.outcome).sort()).toEqual(['lost', 'won']);
    const loser = bots.find((h) => h.discord.callbacks().length === 0)!;
    const lines = loser.logs.filter((l) => l.interactionId !== undefined);
    expect(lines).toEqual([expect.objectContaining({ level: 20, msg: 'interaction answered by another process', store: 'sqlite' })]);
  });

  it('40 /stats, each delivered to both: 40 callbacks and 40 requests in all, not 80', async () => {
    const { bots } = await twoProcesses(await sqliteLeases());
    let requests = 0;
    for (const h of bots) h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(() => (requests++, { statusCode: 200, data: sampleStats(), responseOptions: { headers: rl() } })).persist();
    for (let i = 0; i < 40; i++) await deliverToBoth(bots, chatInput('stats', undefined));
    expect(total(bots, (h) => h.discord.callbacks().length)).toBe(40);
    expect(requests).toBe(40);
    // Both processes answer some: the claim is a race, not a leader.
    const ids = bots.flatMap((h) => h.discord.callbacks().map((c) => c.path));
    expect(new Set(ids).size).toBe(40);
  });

  it('one /feed create delivered to both: one POST /feeds, one feed', async () => {
    const { bots } = await twoProcesses(await sqliteLeases());
    let posts = 0;
    for (const h of bots) h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(() => (posts++, { statusCode: 201, data: created, responseOptions: { headers: rl() } })).persist();
    await deliverToBoth(bots, chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post' }));
    expect(posts).toBe(1);
    expect(total(bots, (h) => h.discord.callbacks().length)).toBe(1);
  });

  it('a claim lives as long as the interaction token (15 minutes)', () => {
    expect(CLAIM_TTL_MS).toBe(15 * 60_000);
  });
});

describe('the store does not answer: each process answers alone', () => {
  class DownLease implements SlotLease {
    readonly kind = 'redis';
    calls = 0;
    claim(): Promise<boolean> {
      this.calls++;
      return Promise.reject(Object.assign(new Error('connect ECONNREFUSED redis://:hunter2@127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    }
    close() {
      return Promise.resolve();
    }
  }
  class SlowLease extends MemoryLease {
    override claim(name: string, ttlMs: number): Promise<boolean> {
      return new Promise((r) => setTimeout(() => r(super.claim(name, ttlMs)), 2_000));
    }
  }

  it('store down: both answer (Discord refuses the second with 40060), counted as unavailable, one warning per outage, no URL in it', async () => {
    const { bots, claims } = await twoProcesses([new DownLease(), new DownLease()]);
    for (const h of bots) h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats(), { headers: rl() }).times(2);
    await deliverToBoth(bots, chatInput('stats', undefined));
    await deliverToBoth(bots, chatInput('stats', undefined));
    expect(bots.map((h) => h.discord.callbacks().length)).toEqual([2, 2]);
    expect(claims.map((c) => c.outcome)).toEqual(['unavailable', 'unavailable', 'unavailable', 'unavailable']);
    for (const log of bots.map((h) => h.logs)) {
      const warnings = log.filter((l) => l.msg === 'interaction claims: the store does not answer; each process answers alone until it does');
      expect(warnings).toEqual([expect.objectContaining({ level: 40, cause: 'ECONNREFUSED', store: 'redis' })]);
      expect(JSON.stringify(log)).not.toContain('hunter2');
    }
  });

  it('store slower than the claim time-out: answered anyway, well within the 3-second deadline', async () => {
    const { bots, claims } = await twoProcesses([new SlowLease(), new SlowLease()], 200);
    for (const h of bots) h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats(), { headers: rl() });
    const started = Date.now();
    await deliverToBoth(bots, chatInput('stats', undefined));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(bots.map((h) => h.discord.callbacks().length)).toEqual([1, 1]);
    expect(claims.map((c) => c.outcome)).toEqual(['unavailable', 'unavailable']);
  });
});
