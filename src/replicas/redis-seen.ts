/**
 * The replay guard's memory shared by the replicas (REDIS_URL): a captured request replayed to
 * another replica behind the load balancer is refused there too. One SET NX PX per interaction;
 * when Redis does not answer, this replica's own memory decides (fail open, as the rest of the
 * shared state: the signature and timestamp checks still hold).
 */
import type { RedisLink } from './redis-link.js';
import { lua } from './redis-link.js';
import { MemorySeenInteractions, SEEN_TTL_MS, type SeenInteractions } from '../http/replay.js';

const FIRST_TIME = lua(`return redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) and 1 or 0`);

export class RedisSeenInteractions implements SeenInteractions {
  private readonly local = new MemorySeenInteractions();

  constructor(
    private readonly link: RedisLink,
    private readonly namespace = 'feedbot',
  ) {}

  async firstTime(interactionId: string): Promise<boolean> {
    const local = this.local.firstTime(interactionId);
    return this.link.attempt(
      async () => (await this.link.run(FIRST_TIME, [`${this.namespace}:seen:${interactionId}`], [SEEN_TTL_MS])) === 1,
      () => local,
    );
  }
}
