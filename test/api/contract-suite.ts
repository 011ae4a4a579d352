/**
 * Client behaviour that must hold against ANY implementation of the feed API: the MockAgent fake
 * (fake-feed-api.ts, run by contract.fake.test.ts) today, the HTTPS sandbox in the contract
 * tests later. Assertions only rely on what the spec promises: no fixed ids, no empty server,
 * a handful of requests (well under the 100-per-minute budget), and every feed created is deleted.
 */
import type { Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FeedApiClient } from '../../src/api/client.js';
import { ForbiddenError, NotFoundError, RateGateRefusalError, UnauthorizedError } from '../../src/api/errors.js';
import { probeKey } from '../../src/api/key-probe.js';
import type { Scope } from '@feedbot/feed-api-contract';

export interface ContractBackend {
  /** Base URL with its path prefix. */
  baseUrl: string;
  /** How to reach it (MockAgent, or an Agent trusting the sandbox's certificate). */
  dispatcher?: Dispatcher;
  /** The server (guild) the keys belong to: GET /stats must report it as `servidor`. */
  guildId: string;
  /** A key with all three scopes. */
  fullKey: string;
  /** A key the server does not know. */
  invalidKey: string;
  /** A fresh valid key with exactly these scopes. */
  keyWithScopes(scopes: Scope[]): Promise<string>;
  close(): Promise<void>;
}

export function describeFeedApiContract(name: string, makeBackend: () => Promise<ContractBackend> | ContractBackend): void {
  describe(`feed API contract: ${name}`, () => {
    let backend: ContractBackend;
    let client: FeedApiClient;
    const created: number[] = [];
    const auth = () => ({ apiKey: backend.fullKey, guildId: backend.guildId });
    const channel = '1100000000000000042';

    beforeEach(async () => {
      backend = await makeBackend();
      client = new FeedApiClient({ baseUrl: backend.baseUrl, dispatcher: backend.dispatcher, timeoutMs: 5000 });
    });

    afterEach(async () => {
      for (const id of created.splice(0)) await client.deleteFeed(auth(), id).catch(() => undefined);
      await backend.close();
    });

    it('create → list → posts → delete → gone', async () => {
      const cuenta = `contract_${Date.now() % 1_000_000}`;
      const feed = await client.createFeed(auth(), { cuenta, canalId: channel, tipos: ['post', 'reel'] });
      created.push(feed.id);
      expect(feed.cuenta).toBe(cuenta);
      expect(feed.canalId).toBe(channel);

      const list = await client.listFeeds(auth(), { fresh: true });
      const item = list.feeds.find((f) => f.id === feed.id);
      expect(item).toMatchObject({ cuenta, canal: channel });
      expect(list.total).toBeGreaterThanOrEqual(1);
      expect(await client.cachedFeeds(backend.guildId)).toEqual(list);

      const posts = await client.listPosts(auth(), feed.id, { limite: 5 });
      expect(Array.isArray(posts.posts)).toBe(true);
      expect(posts.posts.length).toBeLessThanOrEqual(5);

      const del = await client.deleteFeed(auth(), feed.id);
      created.splice(created.indexOf(feed.id), 1);
      expect(del.ok).toBe(true);
      expect(await client.cachedFeeds(backend.guildId)).toBeUndefined();
      const after = await client.listFeeds(auth());
      expect(after.feeds.some((f) => f.id === feed.id)).toBe(false);

      const again = await client.deleteFeed(auth(), feed.id).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(NotFoundError);
    });

    it('GET /stats reports the key’s server, and the rate headers are learnt', async () => {
      const stats = await client.getStats(auth());
      expect(stats.servidor).toBe(backend.guildId);
      const gate = await client.gateState(backend.fullKey);
      expect(typeof gate.remaining).toBe('number');
      expect(gate.resetAt).toBeInstanceOf(Date);
    });

    it('an unknown key → 401 UnauthorizedError, and probeKey says invalid', async () => {
      const err = await client.listFeeds({ apiKey: backend.invalidKey, guildId: backend.guildId }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnauthorizedError);
      const probe = await probeKey(client.requester, backend.invalidKey);
      expect(probe.valid).toBe(false);
    });

    it('a read-only key → 403 on writes, naming the scope; probeKey maps the scopes', async () => {
      const key = await backend.keyWithScopes(['feeds:read']);
      const err = await client
        .createFeed({ apiKey: key, guildId: backend.guildId }, { cuenta: 'nasa', canalId: channel, tipos: ['post'] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ForbiddenError);
      expect((err as ForbiddenError).requiredScope).toBe('feeds:write');
      const probe = await probeKey(client.requester, key);
      // feedChannels: where the key's feeds forward to (the backend's own feeds), for the server check.
      expect(probe).toEqual({ valid: true, scopes: { 'feeds:read': true, 'feeds:write': false, 'stats:read': false }, feedChannels: expect.any(Array) });
    });

    it('a full key probes as all scopes, with stats for the server check', async () => {
      const probe = await probeKey(client.requester, backend.fullKey);
      expect(probe.valid).toBe(true);
      expect(probe.scopes).toEqual({ 'feeds:read': true, 'feeds:write': true, 'stats:read': true });
      expect(probe.stats?.servidor).toBe(backend.guildId);
    });

    it('a key that spends its whole window: 100 answers, then the gate refuses locally — never an upstream 429', async () => {
      const key = await backend.keyWithScopes(['stats:read']);
      const a = { apiKey: key, guildId: backend.guildId };
      let answered = 0;
      let refusal: unknown;
      for (let i = 0; i < 120 && refusal === undefined; i++) {
        await client.getStats(a).then(
          () => answered++,
          (e: unknown) => (refusal = e),
        );
      }
      expect(answered).toBe(100);
      expect(refusal).toBeInstanceOf(RateGateRefusalError);
      expect((refusal as RateGateRefusalError).resetAt.getTime()).toBeGreaterThan(Date.now());
    });

    it('posts of a feed that does not exist → NotFoundError', async () => {
      const err = await client.listPosts(auth(), 2_000_000_000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
    });
  });
}
