/**
 * Baseline for scenario 5: a bare discord.js client (Guilds intent, every cache at its default)
 * that logs in and does nothing else. Reads DISCORD_TOKEN and DISCORD_API_URL; prints one JSON
 * line `{"msg":"ready","guilds":n}` once READY.
 */
import { Client, Events, GatewayIntentBits } from 'discord.js';

// Sharding as the bot does it (Discord requires it from 2,500 guilds on); everything else default.
const client = new Client({ intents: [GatewayIntentBits.Guilds], shards: 'auto', rest: { api: process.env.DISCORD_API_URL! } });
client.once(Events.ClientReady, (ready) => {
  process.stdout.write(`${JSON.stringify({ msg: 'ready', guilds: ready.guilds.cache.size })}\n`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void client.destroy().finally(() => process.exit(0));
  });
}
await client.login(process.env.DISCORD_TOKEN);
