/**
 * Readiness: every shard Ready and the key store answering, or a 503 that says which is not —
 * checked on its own and through the listener startOps serves, with a real key store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyStoreError } from '../../src/keys/errors.js';
import { KeyStore } from '../../src/keys/store.js';
import { silentLogger } from '../../src/logger.js';
import type { GatewayShard } from '../../src/ops/gateway.js';
import { startOps, type ObservedBot, type Ops } from '../../src/ops/index.js';
import { checkReadiness } from '../../src/ops/readiness.js';

const READY = 0;
const CONNECTING = 1;
const RESUMING = 8;

const gateway = (...statuses: number[]) => ({ shards: new Map<number, GatewayShard>(statuses.map((status, id) => [id, { status, ping: 30 }])) });
const answers = () => Promise.resolve();

describe('checkReadiness', () => {
  it('is ready when every shard is Ready and the key store answers', async () => {
    expect(await checkReadiness({ gateway: gateway(READY, READY), pingKeyStore: answers })).toEqual({
      ready: true,
      shards: { '0': 'Ready', '1': 'Ready' },
      keyStore: 'ok',
      problems: [],
    });
  });

  it('a shard that is not Ready makes the process not ready, and is named', async () => {
    const r = await checkReadiness({ gateway: gateway(READY, RESUMING), pingKeyStore: answers });
    expect(r).toMatchObject({ ready: false, shards: { '0': 'Ready', '1': 'Resuming' }, keyStore: 'ok', problems: ['gateway shard 1 is Resuming'] });
  });

  it('no shard yet (still logging in) is not ready', async () => {
    const r = await checkReadiness({ gateway: gateway(), pingKeyStore: answers });
    expect(r).toMatchObject({ ready: false, shards: {}, problems: ['no gateway shard yet (logging in)'] });
  });

  it('a failing key store is not ready, with its error code only', async () => {
    const failing = () => Promise.reject(new KeyStoreError('storage', 'could not open /secret/path/keys.sqlite for guild 1100000000000000001'));
    const r = await checkReadiness({ gateway: gateway(READY), pingKeyStore: failing });
    expect(r).toMatchObject({ ready: false, keyStore: 'error (storage)', problems: ['key store: error (storage)'] });
    expect(JSON.stringify(r)).not.toMatch(/secret|1100000000000000001/);
    const odd = await checkReadiness({ gateway: gateway(READY), pingKeyStore: () => Promise.reject(new Error('x')) });
    expect(odd.keyStore).toBe('error (unexpected)');
  });

  it('a key store that hangs is a time-out, not a hung probe', async () => {
    const started = Date.now();
    const r = await checkReadiness({ gateway: gateway(READY), pingKeyStore: () => new Promise(() => undefined) }, { keyStoreTimeoutMs: 50 });
    expect(r).toMatchObject({ ready: false, keyStore: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('shutting down is not ready', async () => {
    const r = await checkReadiness({ gateway: gateway(READY), pingKeyStore: answers, stopping: () => true });
    expect(r).toMatchObject({ ready: false, problems: ['shutting down'] });
  });
});

describe('/readyz of startOps with a real key store', () => {
  let dir: string;
  let keys: KeyStore;
  let ops: Ops | undefined;
  const shards = new Map<number, GatewayShard>();

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feedbot-ops-'));
    keys = await KeyStore.open({ databaseUrl: join(dir, 'keys.sqlite'), secret: Buffer.alloc(32, 7) });
    shards.clear();
  });
  afterEach(async () => {
    await ops?.close();
    ops = undefined;
    await keys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function fakeBot(): ObservedBot {
    return {
      router: { onInteraction: () => () => undefined, inFlight: 0 },
      api: { onResponse: () => () => undefined, onCacheLookup: () => () => undefined },
      keys,
      client: { ws: { shards } },
    };
  }

  async function readyz(): Promise<{ status: number; body: { ready: boolean; problems: string[]; keyStore: string } }> {
    const res = await request(`${ops!.url}/readyz`);
    return { status: res.statusCode, body: (await res.body.json()) as { ready: boolean; problems: string[]; keyStore: string } };
  }

  it('goes 503 → 200 as the shard connects, and back to 503 when shutdown begins or the store closes', async () => {
    ops = await startOps(fakeBot(), { host: '127.0.0.1', port: 0, logger: silentLogger() });
    expect((await request(`${ops.url}/healthz`)).statusCode).toBe(200);
    expect(await readyz()).toMatchObject({ status: 503, body: { ready: false, problems: ['no gateway shard yet (logging in)'] } });
    shards.set(0, { status: CONNECTING, ping: -1 });
    expect(await readyz()).toMatchObject({ status: 503, body: { problems: ['gateway shard 0 is Connecting'] } });
    shards.set(0, { status: READY, ping: 25 });
    expect(await readyz()).toMatchObject({ status: 200, body: { ready: true, keyStore: 'ok' } });
    expect(await readyGauge()).toBe(1);

    ops.markStopping();
    expect(await readyz()).toMatchObject({ status: 503, body: { problems: ['shutting down'] } });
    expect(await readyGauge()).toBe(0);
  });

  /** feedbot_ready in the scrape: /readyz as a series. */
  async function readyGauge(): Promise<number | undefined> {
    const res = await request(`${ops!.url}/metrics`);
    const line = (await res.body.text()).split('\n').find((l) => l.startsWith('feedbot_ready '));
    return line === undefined ? undefined : Number(line.split(' ')[1]);
  }

  it('a closed key store is a 503 naming it', async () => {
    shards.set(0, { status: READY, ping: 25 });
    ops = await startOps(fakeBot(), { host: '127.0.0.1', port: 0, logger: silentLogger() });
    expect((await readyz()).status).toBe(200);
    await keys.close();
    expect(await readyz()).toMatchObject({ status: 503, body: { keyStore: 'error (closed)', problems: ['key store: error (closed)'] } });
    expect(await readyGauge()).toBe(0);
  });

  it('the real key store ping is a query that counts as an operation', async () => {
    const seen: string[] = [];
    keys.onOperation((o) => seen.push(`${o.op}:${o.outcome}`));
    await keys.ping();
    await keys.close();
    await expect(keys.ping()).rejects.toMatchObject({ code: 'closed' });
    expect(seen).toEqual(['ping:ok', 'ping:closed']);
  });
});
