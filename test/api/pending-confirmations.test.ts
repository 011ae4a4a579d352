/**
 * Open confirmations (src/interactions/pending.ts, commands/feed/confirmations.ts), in memory and shared
 * through Redis by replicas (src/replicas/redis-pending.ts).
 * The store: a value is taken once whichever replicas ask, a running mark is held by one press,
 * both lapse with their time to live, Redis keys are namespaced.
 * As the commands keep them: what delete, bulk delete and import keep is plain data that reads
 * back equal on another replica; what does not pass its check reads as expired; the asking
 * replica's timer says "expired" only when no replica answered meanwhile.
 * A Redis that stops answering makes asking and pressing a user error saying to try again, with a
 * log line each (the outage itself logged once).
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ChannelType } from 'discord.js';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import { PendingConfirmations } from '../../src/interactions/confirmations.js';
import { feedSummary } from '../../commands/feed/confirmations.js';
import { BulkPlanSchema, FeedSummarySchema } from '../../commands/feed/pending-values.js';
import { ImportPlanSchema } from '../../src/transfer/plan-schema.js';
import type { FeedSummary } from '../../src/audit/events.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { explain } from '../../src/interactions/explain.js';
import { ConfirmationsUnavailableError, type PendingStore } from '../../src/interactions/pending.js';
import { MemoryPendingStore } from '../../src/interactions/pending-memory.js';
import { lua, RedisLink } from '../../src/replicas/redis-link.js';
import { RedisPendingStore } from '../../src/replicas/redis-pending.js';
import { SqlPendingStore } from '../../src/interactions/pending-sql.js';
import { openSqlRunner } from '../../src/leases/sql-runner.js';
import { startPostgres, type LocalServer } from '@feedbot/playground';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { translator } from '../../src/i18n/index.js';
import type { Logger } from '../../src/logger.js';
import { readImportFile } from '../../src/transfer/format.js';
import { claimServerImport } from '../../src/transfer/import-lock.js';
import { planImport } from '../../src/transfer/plan.js';
import { captureLogger, rejection } from './helpers.js';
import { describeStates, redisMissing, RedisServerFixture, type StoreKind } from './shared-redis.js';

const C1 = '1300000000000000001';
const C2 = '1300000000000000002';
const ASKED = '1400000000000000001';
const PTTL = lua(`return redis.call('PTTL', KEYS[1])`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const listed = (id: number, cuenta: string, canal: string, estado = 'activo'): FeedListItem => ({ id, cuenta, canal, estado, tipos: ['post', 'reel'], filtros: 0, ultimoPost: null });

const redis = new RedisServerFixture();
let postgres: Promise<LocalServer> | undefined;
const sqlDirs: string[] = [];
const sqlStores: SqlPendingStore[] = [];
afterAll(async () => {
  await redis.stop();
  for (const store of sqlStores) await store.close();
  await (await postgres)?.stop();
  for (const dir of sqlDirs) rmSync(dir, { recursive: true, force: true });
});

/** Every store kind the bot has: memory, REDIS_URL's Redis, and the key store's SQLite file or PostgreSQL database. */
const ALL_KINDS: StoreKind[] = ['memory', 'redis', 'sqlite', 'postgres'];

/** `n` replicas' stores on one key space; in memory, one process's store stands for all. */
async function replicas(kind: StoreKind, n: number): Promise<PendingStore[]> {
  if (kind === 'memory') {
    const store = new MemoryPendingStore();
    return Array.from({ length: n }, () => store);
  }
  if (kind === 'sqlite' || kind === 'postgres') {
    let url: string;
    if (kind === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'feedbot-pending-'));
      sqlDirs.push(dir);
      url = join(dir, 'shared.sqlite');
    } else {
      postgres ??= startPostgres();
      url = await (await postgres).newDatabase();
    }
    // One connection each, as processes have.
    const stores = await Promise.all(Array.from({ length: n }, async () => SqlPendingStore.open(await openSqlRunner(url))));
    sqlStores.push(...stores);
    return stores;
  }
  const namespace = redis.namespace();
  return Promise.all(Array.from({ length: n }, async () => new RedisPendingStore(await redis.link(), namespace)));
}

/** What a handler passes: the services' store and logger, and the interaction (a press's id owns its mark). */
/** The server every confirmation here is asked in: the store's keys name it (a press from another server finds nothing). */
const GUILD = '1300000000000000001';

function context(pending: PendingStore, logger: Logger, interactionId = '1400000000000000099', guildId = GUILD): HandlerContext {
  return { services: { pending, logger }, interaction: { id: interactionId }, guildId: () => guildId } as unknown as HandlerContext;
}

/** An import plan with something in every part: to create (with filters, paused), present, invalid with vars. */
function importPlan() {
  const file = JSON.stringify({
    format: 'feedbot-feeds',
    version: 1,
    feeds: [
      { cuenta: 'nasa', canal: C1, tipos: ['post', 'story'] },
      { cuenta: 'esa', canal: C1, tipos: ['reel'] },
      { cuenta: 'jaxa', canal: '1300000000000000099', tipos: ['post'] },
      { cuenta: 'NASA', canal: C1, tipos: ['story'] },
      { cuenta: 'isro', canal: C2, tipos: ['post'], filtros: 3, estado: 'pausado' },
      { cuenta: '', canal: C1, tipos: ['post'] },
    ],
  });
  return planImport(readImportFile(file, 'json'), [listed(7, 'esa', C1)], new Map([C1, C2].map((id) => [id, ChannelType.GuildText])));
}

describeStates('open confirmations store', (kind) => {
  it('a value is taken once, whichever replica asks first; a new put replaces it', async () => {
    const [a, b] = await replicas(kind, 2);
    await a!.put('import:1', '{"n":1}', 10_000);
    await a!.put('import:1', '{"n":2}', 10_000);
    await a!.put('import:2', '{"n":3}', 10_000);
    expect(await b!.take('import:1')).toBe('{"n":2}');
    expect(await a!.take('import:1')).toBeUndefined();
    expect(await b!.take('import:1')).toBeUndefined();
    expect(await a!.take('import:2')).toBe('{"n":3}');
    expect(await a!.take('never-put')).toBeUndefined();
  });

  it('presses arriving together on three replicas: exactly one gets the value', async () => {
    const stores = await replicas(kind, 3);
    await stores[0]!.put('bulk-delete:7', '[1,2]', 10_000);
    const taken = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.take('bulk-delete:7')));
    expect(taken.filter((v) => v !== undefined)).toEqual(['[1,2]']);
  });

  it('a value lapses with its time to live', async () => {
    const [a, b] = await replicas(kind, 2);
    await a!.put('delete:1', '{}', 60);
    await a!.put('delete:2', '{}', 5_000);
    await pause(150);
    expect(await b!.take('delete:1')).toBeUndefined();
    expect(await b!.take('delete:2')).toBe('{}');
  });

  it('a running mark is held by one press across the replicas, released only by its owner, and lapses', async () => {
    const [a, b, c] = await replicas(kind, 3);
    const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => [a, b, c][i % 3]!.claim('import:9', `press-${i}`, 10_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const owner = `press-${claims.indexOf(true)}`;
    await b!.release('import:9', 'someone-else');
    expect(await c!.claim('import:9', 'press-late', 10_000)).toBe(false);
    await b!.release('import:9', owner);
    expect(await c!.claim('import:9', 'press-late', 60)).toBe(true);
    // A mark and a value of the same confirmation do not meet.
    await a!.put('import:9', '{}', 10_000);
    expect(await b!.take('import:9')).toBe('{}');
    await pause(150);
    expect(await a!.claim('import:9', 'press-after', 10_000)).toBe(true);
  });
}, ALL_KINDS);

describeStates('open confirmations as the commands keep them', (kind) => {
  it("the import plan, the bulk plan and the single delete's feed read back equal on another replica", async () => {
    const [a, b] = await replicas(kind, 2);
    const { logger } = captureLogger();
    const plan = importPlan();
    expect([plan.create.length, plan.present.length, plan.invalid.length]).toEqual([2, 1, 3]);
    const bulk = [listed(11, 'nasa', C1), listed(12, 'esa', C1, 'pausado')].map(feedSummary);
    const one = feedSummary(listed(3, 'jaxa', C2));

    // One replica's features, and another's: their confirmations of one asking interaction do not meet.
    const features = () => [new PendingConfirmations('import', ImportPlanSchema), new PendingConfirmations('bulk-delete', BulkPlanSchema), new PendingConfirmations('delete', FeedSummarySchema)] as const;
    const [importsA, bulksA, deletesA] = features();
    const [importsB, bulksB, deletesB] = features();
    await importsA.start(context(a!, logger), ASKED, plan, 10_000, () => undefined);
    await bulksA.start(context(a!, logger), ASKED, bulk, 10_000, () => undefined);
    await deletesA.start(context(a!, logger), ASKED, one, 10_000, () => undefined);
    expect(await importsB.take(context(b!, logger), ASKED)).toEqual(plan);
    expect(await bulksB.take(context(b!, logger), ASKED)).toEqual(bulk);
    expect(await deletesB.take(context(b!, logger), ASKED)).toEqual(one);
    expect(await deletesB.take(context(b!, logger), undefined)).toBeUndefined();
    for (const p of [importsA, bulksA, deletesA]) p.dispose();
  });

  it('a stored value that does not pass its check reads as expired, with a log line', async () => {
    const [store] = await replicas(kind, 1);
    const { logger, lines } = captureLogger();
    const deletes = new PendingConfirmations<FeedSummary>('delete', FeedSummarySchema);
    await store!.put(`delete:${GUILD}:${ASKED}`, '{"id":"1","cuenta":"nasa"}', 10_000);
    expect(await deletes.take(context(store!, logger), ASKED)).toBeUndefined();
    await store!.put(`delete:${GUILD}:${ASKED}`, 'not json', 10_000);
    expect(await deletes.take(context(store!, logger), ASKED)).toBeUndefined();
    const imports = new PendingConfirmations('import', ImportPlanSchema);
    const plan = importPlan();
    const [row] = plan.create;
    // Each unlike what reading a file leaves: an unknown message, an account the API refuses, an overlong state or label.
    for (const changed of [
      { invalid: [{ ...plan.invalid[0], key: 'no.such.key' }] },
      { create: [{ ...row, cuenta: 'no way!' }] },
      { create: [{ ...row, estado: 'x'.repeat(101) }] },
      { invalid: [{ ...plan.invalid[0], label: 'x'.repeat(101) }] },
    ]) {
      await store!.put(`import:${GUILD}:${ASKED}`, JSON.stringify({ ...plan, ...changed }), 10_000);
      expect(await imports.take(context(store!, logger), ASKED)).toBeUndefined();
    }
    // The limits themselves still read back.
    await store!.put(`import:${GUILD}:${ASKED}`, JSON.stringify({ ...plan, create: [{ ...row, estado: 'x'.repeat(100) }], invalid: [{ ...plan.invalid[0], label: 'x'.repeat(100) }] }), 10_000);
    expect(await imports.take(context(store!, logger), ASKED)).toBeDefined();
    expect(lines.filter((l) => l.includes('a stored confirmation did not read back; answered as expired'))).toHaveLength(6);
  });

  it("the asking replica's timer says expired once, and only when no replica took the confirmation", async () => {
    const [a, b] = await replicas(kind, 2);
    const { logger } = captureLogger();
    const [onA, onB] = [new PendingConfirmations('delete', FeedSummarySchema), new PendingConfirmations('delete', FeedSummarySchema)];
    const answeredElsewhere = vi.fn();
    const unanswered = vi.fn();
    // Long enough for the take below on a loaded machine (PostgreSQL round trips), short for a test.
    const ttlMs = 1_500;
    await onA.start(context(a!, logger), '1400000000000000021', { id: 1 }, ttlMs, answeredElsewhere);
    await onA.start(context(a!, logger), '1400000000000000022', { id: 2 }, ttlMs, unanswered);
    expect(await onB.take(context(b!, logger), '1400000000000000021')).toEqual({ id: 1 });
    await vi.waitFor(() => expect(unanswered).toHaveBeenCalledOnce(), { timeout: ttlMs + 5_000 });
    await pause(50);
    expect(answeredElsewhere).not.toHaveBeenCalled();
    // Expired: taken by the timer, so a late press anywhere finds nothing.
    expect(await onB.take(context(b!, logger), '1400000000000000022')).toBeUndefined();
  });

  it('a press in the asking process releases its timer; dispose releases the rest', async () => {
    const [store] = await replicas(kind, 1);
    const { logger } = captureLogger();
    const deletes = new PendingConfirmations('delete', FeedSummarySchema);
    const [answered, disposed] = [vi.fn(), vi.fn()];
    await deletes.start(context(store!, logger), '1400000000000000031', { id: 1 }, 60, answered);
    await deletes.start(context(store!, logger), '1400000000000000032', { id: 2 }, 60, disposed);
    expect(await deletes.take(context(store!, logger), '1400000000000000031')).toEqual({ id: 1 });
    deletes.dispose();
    await pause(150);
    expect(answered).not.toHaveBeenCalled();
    expect(disposed).not.toHaveBeenCalled();
  });

  it('a running mark taken by a press on one replica refuses presses on the others until released', async () => {
    const [a, b] = await replicas(kind, 2);
    const { logger } = captureLogger();
    const [onA, onB] = [new PendingConfirmations('import', ImportPlanSchema), new PendingConfirmations('import', ImportPlanSchema)];
    const claims = await Promise.all([onA.claim(context(a!, logger, '1400000000000000041'), ASKED), onB.claim(context(b!, logger, '1400000000000000042'), ASKED)]);
    const held = claims.filter((c) => c !== undefined);
    expect(held).toHaveLength(1);
    expect(await onB.claim(context(b!, logger, '1400000000000000043'), ASKED)).toBeUndefined();
    await held[0]!.release();
    expect(await onB.claim(context(b!, logger, '1400000000000000043'), ASKED)).toBeDefined();
  });

  it("a server's import is held by one press across the replicas, whatever preview it came from, until released", async () => {
    const [a, b] = await replicas(kind, 2);
    const { logger } = captureLogger();
    const [guild, other] = ['1100000000000000001', '1100000000000000002'];
    const holds = await Promise.all([claimServerImport({ pending: a!, logger }, guild, '1400000000000000051'), claimServerImport({ pending: b!, logger }, guild, '1400000000000000052')]);
    const held = holds.filter((h) => h !== undefined);
    expect(held).toHaveLength(1);
    expect(await claimServerImport({ pending: b!, logger }, guild, '1400000000000000053')).toBeUndefined();
    // Another server imports meanwhile; a preview's own mark is another key.
    expect(await claimServerImport({ pending: b!, logger }, other, '1400000000000000054')).toBeDefined();
    expect(await new PendingConfirmations('import', ImportPlanSchema).claim(context(b!, logger, '1400000000000000055'), ASKED)).toBeDefined();
    await held[0]!.release();
    expect(await claimServerImport({ pending: b!, logger }, guild, '1400000000000000053')).toBeDefined();
  });
}, ALL_KINDS);

describe.skipIf(redisMissing !== undefined)('open confirmations on Redis', () => {
  it('keys live under the namespace and expire with the confirmation', async () => {
    const link = await redis.link();
    const [ns, other] = [redis.namespace(), redis.namespace()];
    const store = new RedisPendingStore(link, ns);
    await store.put('delete:5', '{"id":5}', 60_000);
    await store.claim('import:5', 'press', 900_000);
    const valueTtl = (await link.run(PTTL, [`${ns}:confirm:delete:5`], [])) as number;
    expect(valueTtl).toBeGreaterThan(55_000);
    expect(valueTtl).toBeLessThanOrEqual(60_000);
    expect(await link.run(PTTL, [`${ns}:confirm-claim:import:5`], [])).toBeGreaterThan(895_000);
    // Another bot on the same server (another namespace) sees neither.
    const neighbour = new RedisPendingStore(link, other);
    expect(await neighbour.take('delete:5')).toBeUndefined();
    expect(await neighbour.claim('import:5', 'press', 1_000)).toBe(true);
    expect(await store.take('delete:5')).toBe('{"id":5}');
  });

  it('when it stops answering, asking and pressing are user errors saying to try again, with a log line each; an expiry leaves the message as it is', async () => {
    const server = await redis.startServer();
    const { logger, lines } = captureLogger();
    const link = await RedisLink.open(`${server.url}/0`, logger);
    try {
      const store = new RedisPendingStore(link, redis.namespace());
      const deletes = new PendingConfirmations('delete', FeedSummarySchema);
      const expired = vi.fn();
      await deletes.start(context(store, logger), '1400000000000000051', { id: 1 }, 100, expired);
      await server.stop();
      const ctx = context(store, logger);
      const errors = [
        await rejection(deletes.start(ctx, '1400000000000000052', { id: 2 }, 10_000, expired)),
        await rejection(deletes.take(ctx, '1400000000000000051')),
        await rejection(deletes.claim(ctx, '1400000000000000051')),
        await rejection(store.release('delete:1400000000000000051', 'press')),
      ];
      for (const error of errors) expect(error).toBeInstanceOf(ConfirmationsUnavailableError);
      expect(explain(errors[0], { t: translator('en') })).toMatchObject({
        outcome: 'user_error',
        message: "The bot's shared storage did not answer, so this confirmation could not be handled. Nothing was changed: try again in a moment.",
      });
      expect(explain(errors[0], { t: translator('es') }).message).toMatch(/^El almacenamiento compartido del bot no respondió/);
      const refusals = lines.filter((l) => l.includes('the confirmation store did not answer; the user is asked to try again'));
      expect(refusals.map((l) => (JSON.parse(l) as { op: string }).op)).toEqual(['put', 'take', 'claim']);
      // The failed take kept the timer: it fires, cannot tell whether a press elsewhere answered, and leaves the message.
      await vi.waitFor(() => expect(lines.some((l) => l.includes('could not tell whether an expired confirmation was answered'))).toBe(true), { timeout: 3_000 });
      expect(expired).not.toHaveBeenCalled();
      deletes.dispose();
      expect(lines.filter((l) => l.includes('Redis does not answer'))).toHaveLength(1);
      expect(lines.join('\n')).not.toContain('redis-secret-pw');
    } finally {
      await link.close();
    }
  });
});
