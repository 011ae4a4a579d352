/**
 * A real Redis for the shared-state tests (packages/playground/src/servers.ts): one server per
 * test file, started on first use and stopped after the file; each `link()` is a connection of
 * its own (a replica), each `namespace()` a key space no other test touches. A missing
 * redis-server skips the Redis cases with a message, except under CI where it fails.
 */
import { describe } from 'vitest';
import { missingServer, startRedis, type LocalServer } from '@feedbot/playground';
import { silentLogger, type Logger } from '../../src/logger.js';
import { RedisLink } from '../../src/replicas/redis-link.js';

/** Why the Redis cases skip here, or undefined when they run. Throws under CI. */
export const redisMissing: string | undefined = missingServer('redis');
if (redisMissing) console.warn(redisMissing.replace('key-store', 'shared-state'));

export type StateKind = 'memory' | 'redis';
/** Also the key store's database, where a store that has such a backend keeps its state without REDIS_URL. */
export type StoreKind = StateKind | 'sqlite' | 'postgres';
/** The shared-state backends the parameterised tests run against (memory: the embedded default). */
export const STATE_KINDS: StateKind[] = ['memory', 'redis'];

/** `describe` once per backend: `[memory]` and `[redis]` (skipped with a message when there is no redis-server). */
export function describeStates<K extends StoreKind = StateKind>(title: string, body: (kind: K) => void, kinds: K[] = STATE_KINDS as K[]): void {
  for (const kind of kinds) {
    const missing = kind === 'redis' ? redisMissing : kind === 'postgres' ? postgresMissing() : undefined;
    describe.skipIf(missing !== undefined)(`${title} [${kind}]`, () => body(kind));
  }
}

let postgresChecked: { missing: string | undefined } | undefined;
/** Why the PostgreSQL cases skip here (asked once, when a file has some), or undefined when they run. Throws under CI. */
function postgresMissing(): string | undefined {
  if (!postgresChecked) {
    postgresChecked = { missing: missingServer('postgres') };
    if (postgresChecked.missing) console.warn(postgresChecked.missing);
  }
  return postgresChecked.missing;
}

let counter = 0;

export class RedisServerFixture {
  private server: Promise<LocalServer> | undefined;
  private url: Promise<string> | undefined;
  private readonly links: RedisLink[] = [];

  /** A new connection to the file's server (started now if need be). */
  async link(logger: Logger = silentLogger()): Promise<RedisLink> {
    this.server ??= startRedis();
    const server = this.server;
    this.url ??= server.then((s) => s.newDatabase());
    const link = await RedisLink.open(await this.url, logger);
    this.links.push(link);
    return link;
  }

  /** A server of its own, for tests that stop it (the caller stops it). */
  startServer(): Promise<LocalServer> {
    return startRedis();
  }

  namespace(): string {
    counter += 1;
    return `t${process.pid}-${counter}`;
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.links.splice(0).map((l) => l.close()));
    const server = this.server;
    this.server = undefined;
    this.url = undefined;
    await (await server)?.stop();
  }
}
