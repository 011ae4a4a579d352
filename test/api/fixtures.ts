/**
 * The fixtures every client test starts from: `apiTest('…', async ({ client, pool }) => …)` gets
 * a MockAgent that refuses the network (and, afterwards, checks every interceptor was used), a
 * hand-moved clock, and a client wired to both. Suites change the client with
 * `apiTest.override({ clientOptions: { … } })`; one test builds another with `makeClient({ … })`.
 * `apiTest.override({ stateKind: 'redis' })` gives every client of a block the shared state on a
 * real Redis (one server per file, started on first use; a fresh key space per test).
 */
import { MockAgent, type Interceptable } from 'undici';
import { test } from 'vitest';
import { FeedApiClient, type FeedApiClientOptions } from '../../src/api/client.js';
import type { ResponseEvent } from '../../src/api/response-events.js';
import type { SharedStateBackend } from '../../src/replicas/shared-state.js';
import { RedisSharedState } from '../../src/replicas/redis-state.js';
import { BASE_URL, Clock, ORIGIN, captureLogger, type CapturedLog } from './helpers.js';
import { RedisServerFixture, type StateKind } from './shared-redis.js';

export interface ApiFixtures {
  /** The wall clock the client's gate and cache read; tests move it by hand. */
  clock: Clock;
  /** Options on top of the test defaults, for every client of the test. */
  clientOptions: Partial<FeedApiClientOptions>;
  /** Where the clients keep their rate gate and feeds cache: this process (default) or Redis. */
  stateKind: StateKind;
  /** The file's Redis server, started by the first test that asks for a connection. */
  redis: RedisServerFixture;
  /** What `makeClient` passes as `sharedState`: undefined in memory, a fresh key space on Redis. */
  sharedState: SharedStateBackend | undefined;
  agent: MockAgent;
  /** The interceptors of the mock API's origin. */
  pool: Interceptable;
  /** A further client on the same agent and clock; `extra` goes on top of `clientOptions`. */
  makeClient: (extra?: Partial<FeedApiClientOptions>) => FeedApiClient;
  client: FeedApiClient;
  /** Every response event `client` reported, in order. */
  events: ResponseEvent[];
  /** A logger whose lines land in an array (pass it as `clientOptions.logger`). */
  log: CapturedLog;
}

export const apiTest = test.extend<ApiFixtures>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixture's dependencies from this pattern
  clock: async ({}, use) => use(new Clock()),
  clientOptions: {},
  stateKind: 'memory',
  redis: [
    // eslint-disable-next-line no-empty-pattern -- vitest reads the fixture's dependencies from this pattern
    async ({}, use) => {
      const redis = new RedisServerFixture();
      await use(redis);
      await redis.stop();
    },
    { scope: 'file' },
  ],
  sharedState: async ({ stateKind, redis }, use) => {
    await use(stateKind === 'redis' ? new RedisSharedState(await redis.link(), redis.namespace()) : undefined);
  },
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixture's dependencies from this pattern
  agent: async ({}, use) => {
    const agent = new MockAgent({ enableCallHistory: true });
    agent.disableNetConnect();
    await use(agent);
    try {
      agent.assertNoPendingInterceptors();
    } finally {
      await agent.close();
    }
  },
  pool: async ({ agent }, use) => use(agent.get(ORIGIN)),
  makeClient: async ({ agent, clock, clientOptions, sharedState }, use) =>
    use(
      (extra = {}) =>
        new FeedApiClient({
          baseUrl: BASE_URL,
          dispatcher: agent,
          timeoutMs: 1000,
          retryBaseMs: 1,
          random: () => 0.5,
          now: clock.now,
          ...(sharedState ? { sharedState } : {}),
          ...clientOptions,
          ...extra,
        }),
    ),
  client: async ({ makeClient }, use) => use(makeClient()),
  events: async ({ client }, use) => {
    const events: ResponseEvent[] = [];
    const unsubscribe = client.onResponse((e) => events.push(e));
    await use(events);
    unsubscribe();
  },
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixture's dependencies from this pattern
  log: async ({}, use) => use(captureLogger()),
});

export function callCount(agent: MockAgent): number {
  return agent.getCallHistory()?.calls().length ?? 0;
}
