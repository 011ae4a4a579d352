/**
 * What scenario 10's parts 1, 3 and 4 run against: the sandbox (the feed API, HTTPS, counting
 * requests per guild) in a worker, one Discord emulator holding the application's key pair, and
 * real bot processes sharing one key store:
 *
 *   gateway   the bot over the gateway (part 1's baseline);
 *   single    the bot in HTTP mode, alone, without Redis (part 1, and part 4's baseline);
 *   replicas  identical HTTP-mode bots sharing Redis (REDIS_URL), behind a real nginx.
 *
 * Without nginx the replicas are not started; without redis-server they run without Redis
 * (part 3 still means something then, part 4 does not). `skipped` says why.
 */
import { join } from 'node:path';
import { makeBotToken, startEmulator, type DiscordEmulator } from '@feedbot/discord-emulator';
import { missingNginx, serverBinariesMissing, startNginx, startRedis, type LoadBalancer, type LocalServer } from '@feedbot/playground';
import { commands } from '../../src/commands.js';
import { allReady, APP_ID, guildsWithIds, spawnBot, storeKeys, type BotEnvironment, type RunningBot } from './http-bots.js';
import { startBenchSandbox, type BenchSandbox, type ScratchGuild } from './sandbox.js';
import type { BenchSigner } from './signed-post.js';

export interface HttpStage {
  sandbox: BenchSandbox;
  emulator: DiscordEmulator;
  /** One guild (with its key and 6 feeds) per use, so no part warms another's cache. */
  guilds: Record<'load' | 'latency' | 'stormReplicas' | 'stormSingle', ScratchGuild>;
  gateway: RunningBot;
  single: RunningBot;
  replicas: RunningBot[];
  /** nginx's interactions URL, when there are replicas. */
  viaNginx?: string;
  /** Why the replicas (parts 3 and 4) or Redis (part 4) are missing. */
  skipped: { replicas?: string; redis?: string };
  close(): Promise<void>;
}

/** nginx's own check throws under CI; the bench is not CI-gated and reports the reason instead. */
function nginxMissing(): string | undefined {
  try {
    return missingNginx() === undefined ? undefined : 'nginx not found (apt-get install nginx)';
  } catch {
    return 'nginx not found (apt-get install nginx)';
  }
}

export async function startHttpStage(opts: { dir: string; signer: BenchSigner; replicas: number; log(message: string): void }): Promise<HttpStage> {
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const closeOne of closers.reverse()) await closeOne().catch(() => undefined);
  };
  try {
    const sandbox = await startBenchSandbox({ countRequests: true });
    closers.push(() => sandbox.close());
    const [load, latency, stormReplicas, stormSingle] = await Promise.all([1, 2, 3, 4].map(() => sandbox.guild({ feeds: 6 })));
    const guilds = { load: load!, latency: latency!, stormReplicas: stormReplicas!, stormSingle: stormSingle! };
    const databaseFile = join(opts.dir, 'keys.sqlite');
    await storeKeys(databaseFile, new Map(Object.values(guilds).map((g) => [g.guildId, g.key])));

    const token = makeBotToken(APP_ID);
    const ids = Object.values(guilds).map((g) => g.guildId);
    const emulator = await startEmulator({ applicationId: APP_ID, botToken: token, guilds: guildsWithIds(ids), interactionsPrivateKey: opts.signer.privateKey });
    closers.push(() => emulator.close());
    emulator.setCommands(commands.map((c) => c.data.toJSON()));

    const skipped: HttpStage['skipped'] = {};
    skipped.replicas = nginxMissing();
    skipped.redis = serverBinariesMissing('redis');
    let redis: LocalServer | undefined;
    if (!skipped.replicas && !skipped.redis) {
      redis = await startRedis().catch((error: unknown) => {
        skipped.redis = `redis-server did not start (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
        return undefined;
      });
      if (redis) closers.push(() => redis!.stop());
    }
    const redisUrl = redis ? await redis.newDatabase() : undefined;

    const env: BotEnvironment = { dir: opts.dir, token, discordApiUrl: emulator.apiUrl, publicKeyHex: opts.signer.publicKeyHex, feedApi: { url: sandbox.url, caPem: sandbox.caPem }, databaseFile };
    const replicaCount = skipped.replicas ? 0 : opts.replicas;
    opts.log(`  starting the bot: over the gateway, alone in HTTP mode${replicaCount ? `, and ${replicaCount} HTTP replicas${redisUrl ? ' sharing Redis' : ''}` : ''}`);
    const bots = await Promise.all([spawnBot(env, 'gateway'), spawnBot(env, 'http'), ...Array.from({ length: replicaCount }, () => spawnBot(env, 'http', redisUrl ? { redisUrl } : {}))]);
    closers.push(() => Promise.all(bots.map((b) => b.stop())));
    await allReady(bots, 'bot');
    const [gateway, single, ...replicas] = bots as [RunningBot, RunningBot, ...RunningBot[]];

    let balancer: LoadBalancer | undefined;
    if (replicas.length > 0) {
      balancer = await startNginx(replicas.map((r) => r.port!));
      closers.push(() => balancer!.stop());
    }
    return { sandbox, emulator, guilds, gateway, single, replicas, ...(balancer ? { viaNginx: `${balancer.url}/interactions` } : {}), skipped, close };
  } catch (error) {
    await close();
    throw error;
  }
}
