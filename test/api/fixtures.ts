/**
 * The fixtures every client test starts from: `apiTest('…', async ({ client, pool }) => …)` gets
 * a MockAgent that refuses the network (and, afterwards, checks every interceptor was used), a
 * hand-moved clock, and a client wired to both. Suites change the client with
 * `apiTest.override({ clientOptions: { … } })`; one test builds another with `makeClient({ … })`.
 */
import { MockAgent, type Interceptable } from 'undici';
import { test } from 'vitest';
import { FeedApiClient, type FeedApiClientOptions } from '../../src/api/client.js';
import type { ResponseEvent } from '../../src/api/response-events.js';
import { BASE_URL, Clock, ORIGIN, captureLogger, type CapturedLog } from './helpers.js';

export interface ApiFixtures {
  /** The wall clock the client's gate and cache read; tests move it by hand. */
  clock: Clock;
  /** Options on top of the test defaults, for every client of the test. */
  clientOptions: Partial<FeedApiClientOptions>;
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
  makeClient: async ({ agent, clock, clientOptions }, use) =>
    use(
      (extra = {}) =>
        new FeedApiClient({
          baseUrl: BASE_URL,
          dispatcher: agent,
          timeoutMs: 1000,
          retryBaseMs: 1,
          random: () => 0.5,
          now: clock.now,
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
