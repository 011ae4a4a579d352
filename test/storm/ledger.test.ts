/**
 * The storm's judges on their own: each invariant check passes what holds and catches what does
 * not, so a storm that reports 0 violations has checks that could have failed. And the plan is
 * the seed's alone: the same seed, the same schedule; the fixed CI seeds are well formed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { APIMessage } from 'discord-api-types/v10';
import type { InteractionSnapshot } from '@feedbot/discord-emulator';
import { checkAuditOnce, checkDeliveries, checkSecrets, checkWrites, type CreateClaim, type Delivery } from './ledger.js';
import { SHAPES, STORES, faultKindsFor, planStorm, replayCommand } from './plan.js';

const GUILD = '1000000000000000001';

function delivery(over: Partial<InteractionSnapshot> = {}, final: Partial<APIMessage> | null = {}, sentAt = 10_000): Delivery {
  const snapshot = {
    id: over.id ?? '900',
    state: 'acknowledged',
    callbacks: 1,
    dispatchedTo: [{ sessionId: 's', shardId: 0, shardCount: 1 }],
    ack: { type: 5, at: 1, elapsedMs: 120, withResponse: false },
    errors: [],
    ...over,
  } as unknown as InteractionSnapshot;
  return { action: 'list', guildId: GUILD, sentAt, snapshot, final: final === null ? undefined : (final as APIMessage) };
}

const noKills = { kills: [], windowMs: 20_000 };

describe('checkDeliveries', () => {
  it('passes an answer acknowledged in time; catches late, expired, doubled and forever "thinking…"', () => {
    expect(checkDeliveries([delivery()], noKills, 'gateway')).toEqual([]);
    const found = checkDeliveries(
      [
        delivery({ id: '1', ack: { type: 5, at: 1, elapsedMs: 3_400, withResponse: false } }),
        delivery({ id: '2', state: 'expired', ack: null }),
        delivery({ id: '3', callbacks: 2 }),
        delivery({ id: '4' }, { flags: 1 << 7 } as Partial<APIMessage>),
        delivery({ id: '5' }, null),
      ],
      noKills,
      'gateway',
    );
    expect(found.map((v) => `${v.invariant}: ${v.detail.split(' ')[1]}`)).toEqual([
      'acknowledged within 3 s: 1',
      'acknowledged within 3 s: 2',
      'answered once: 3',
      'a final answer: 4',
      'a final answer: 5',
    ]);
  });

  it('excuses what a kill cut short and what was never delivered over the gateway, but not a double answer', () => {
    const expired = delivery({ state: 'expired', ack: null }, null, 50_000);
    expect(checkDeliveries([expired], { kills: [60_000], windowMs: 20_000 }, 'gateway')).toEqual([]);
    expect(checkDeliveries([expired], { kills: [90_000], windowMs: 20_000 }, 'gateway')).toHaveLength(1);
    expect(checkDeliveries([delivery({ state: 'expired', ack: null, dispatchedTo: [] })], noKills, 'gateway')).toEqual([]);
    // Over HTTP nothing is "not delivered": the emulator POSTs every interaction.
    expect(checkDeliveries([delivery({ state: 'expired', ack: null, dispatchedTo: [] })], noKills, 'http')).toHaveLength(1);
    expect(checkDeliveries([delivery({ callbacks: 2 }, {}, 50_000)], { kills: [50_000], windowMs: 20_000 }, 'gateway')).toHaveLength(1);
  });
});

describe('two processes on one shard while claims could not be made', () => {
  it('a second answer then is the documented trade-off; outside an outage it is a violation', () => {
    const twice = delivery({ callbacks: 2 }, {}, 50_000);
    expect(checkDeliveries([twice], { kills: [], windowMs: 0, claimOutages: [{ from: 45_000, to: 55_000 }] }, 'gateway')).toEqual([]);
    expect(checkDeliveries([twice], { kills: [], windowMs: 0, claimOutages: [{ from: 10_000, to: 20_000 }] }, 'gateway')).toHaveLength(1);
    // What the user read may be the loser's answer: not judged for those writes alone.
    const told = { guildId: GUILD, account: 'both', outcome: 'refused' as const, interactionId: '77', at: 0 };
    const feeds = new Map([[GUILD, [{ id: 1, cuenta: 'both' }]]]);
    expect(checkWrites([told], [], feeds, new Set(['77']))).toEqual([]);
    expect(checkWrites([told], [], feeds)).toHaveLength(1);
  });
});

describe('checkWrites', () => {
  const create = (account: string, outcome: CreateClaim['outcome'], id?: number): CreateClaim => ({ guildId: GUILD, account, outcome, ...(id ? { id } : {}), interactionId: account, at: 0 });
  const held = (...feeds: [number, string][]) => new Map([[GUILD, feeds.map(([id, cuenta]) => ({ id, cuenta }))]]);

  it('passes what the users were told; catches a double, a lost create, a "not done" that was done, a delete that was not', () => {
    expect(checkWrites([create('a', 'done', 1), create('b', 'refused'), create('c', 'check', 3), create('d', 'unanswered')], [], held([1, 'a'], [3, 'c']))).toEqual([]);
    const found = checkWrites(
      [create('twice', 'done', 1), create('lost', 'done', 2), create('told-not', 'refused')],
      [{ guildId: GUILD, id: 9, outcome: 'done', interactionId: 'del', at: 0 }],
      held([1, 'twice'], [7, 'twice'], [8, 'told-not'], [9, 'other']),
    );
    expect(found.map((v) => v.invariant)).toEqual(['no write doubled', 'no write lost', 'told what happened', 'no write lost']);
  });

  it("a delete reported refused whose feed is gone is caught as the delete's, not as a lost create", () => {
    const found = checkWrites([create('x', 'done', 6)], [{ guildId: GUILD, id: 6, outcome: 'refused', interactionId: 'del', at: 0 }], held());
    expect(found.map((v) => v.invariant)).toEqual(['told what happened']);
    expect(found[0]!.detail).toContain('delete of #6');
    // Refused, and still there: what the user was told holds.
    expect(checkWrites([create('x', 'done', 6)], [{ guildId: GUILD, id: 6, outcome: 'refused', interactionId: 'del', at: 0 }], held([6, 'x']))).toEqual([]);
  });

  it('a feed reported done and then deleted (done or maybe) is not lost; account names compare without case', () => {
    expect(checkWrites([create('Gone', 'done', 4)], [{ guildId: GUILD, id: 4, outcome: 'check', interactionId: 'x', at: 0 }], held())).toEqual([]);
    expect(checkWrites([create('Case', 'done', 5)], [], held([5, 'case']))).toEqual([]);
  });
});

describe('checkAuditOnce and checkSecrets', () => {
  it('catches a change posted twice and a secret in the output', () => {
    expect(checkAuditOnce(new Map([[GUILD, ['Feed #1 created', 'Feed #1 deleted']]]))).toEqual([]);
    expect(checkAuditOnce(new Map([[GUILD, ['Feed #1 created', 'Feed #1 created']]]))).toHaveLength(1);
    expect(checkSecrets('{"msg":"ready"}', ['fk_live_abcdefgh12345678'])).toEqual([]);
    const leak = checkSecrets('{"msg":"x","key":"fk_live_abcdefgh12345678"}', ['fk_live_abcdefgh12345678']);
    expect(leak).toHaveLength(1);
    // The report names the secret by its last characters only.
    expect(leak[0]!.detail).not.toContain('fk_live_abcdefgh');
  });
});

describe('the plan', () => {
  it('is the seed alone: the same seed, the same schedule; another seed, another', () => {
    expect(planStorm(7, 'shards', 'redis', 2)).toEqual(planStorm(7, 'shards', 'redis', 2));
    expect(planStorm(8, 'shards', 'redis', 2).faults).not.toEqual(planStorm(7, 'shards', 'redis', 2).faults);
    const plan = planStorm(7, 'shards', 'redis', 2);
    expect(plan.faults.length).toBeGreaterThan(5);
    expect(plan.faults.every((f) => f.atS < plan.calmFromS && f.atS + f.forS <= plan.calmFromS + 0.1)).toBe(true);
    expect(replayCommand(plan)).toBe('npm run storm -- --seed 7 --minutes 2 --shape shards --store redis');
  });

  it('draws only faults a shape and store can suffer', () => {
    expect(faultKindsFor('replicas', 'sqlite').some((k) => k.startsWith('gateway_') || k === 'store_down')).toBe(false);
    expect(faultKindsFor('gateway', 'postgres')).toContain('store_down');
    for (const shape of SHAPES) for (const store of STORES) for (const f of planStorm(3, shape, store, 3).faults) expect(faultKindsFor(shape, store)).toContain(f.kind);
  });

  it('the fixed CI seeds cover every shape and every store', () => {
    const seeds = JSON.parse(readFileSync(new URL('./ci-seeds.json', import.meta.url), 'utf8')) as { shape: string; store: string; seed: number }[];
    expect(new Set(seeds.map((s) => s.shape))).toEqual(new Set(SHAPES));
    expect(new Set(seeds.map((s) => s.store))).toEqual(new Set(STORES));
  });
});
