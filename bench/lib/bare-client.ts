/**
 * Baseline for scenarios 5 and 9: a bare discord.js client (Guilds intent, every cache at its
 * default) that logs in and does nothing else. Reads DISCORD_TOKEN and DISCORD_API_URL, and
 * SHARD_COUNT with SHARD_IDS as the bot reads them; prints one JSON line
 * `{"msg":"ready","guilds":n}` once READY.
 */
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { parseShardIds } from '../../src/shard-ids.js';

// Sharding as the bot does it (Discord requires it from 2,500 guilds on); everything else default.
const shardCount = process.env.SHARD_COUNT ? Number(process.env.SHARD_COUNT) : undefined;
const sharding = shardCount === undefined ? { shards: 'auto' as const } : { shards: parseShardIds(process.env.SHARD_IDS ?? `0-${shardCount - 1}`), shardCount };
const client = new Client({ intents: [GatewayIntentBits.Guilds], ...sharding, rest: { api: process.env.DISCORD_API_URL! } });
client.once(Events.ClientReady, (ready) => {
  process.stdout.write(`${JSON.stringify({ msg: 'ready', guilds: ready.guilds.cache.size })}\n`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void client.destroy().finally(() => process.exit(0));
  });
}
await client.login(process.env.DISCORD_TOKEN);
