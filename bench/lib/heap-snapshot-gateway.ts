/**
 * Diagnostic (not a scenario): logs the bot's discord.js client (src/bot/discord-client.ts) in to
 * an emulator serving N guilds, in a child process of its own so the emulator's memory is not in
 * the picture, runs a full GC there and writes a heap snapshot. Two sizes diffed show what each
 * extra guild holds.
 * `npx tsx bench/lib/heap-snapshot-gateway.ts N [out.heapsnapshot]`
 */
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import { Events } from 'discord.js';
import { generateGuilds, makeBotToken, startEmulator } from '@feedbot/discord-emulator';
import { createDiscordClient } from '../../src/bot/discord-client.js';
import { tsxUrl } from './tsx.js';

const APP_ID = '1200000000000000001';

if (process.env.SNAPSHOT_API_URL) {
  const client = createDiscordClient({ apiUrl: process.env.SNAPSHOT_API_URL });
  const ready = once(client, Events.ClientReady);
  await client.login(process.env.SNAPSHOT_TOKEN);
  await ready;
  await new Promise((r) => setTimeout(r, 1_000));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const mem = process.memoryUsage();
  console.log(JSON.stringify({ guilds: client.guilds.cache.size, heapUsed: mem.heapUsed, rss: mem.rss }));
  if (process.env.SNAPSHOT_OUT) writeHeapSnapshot(process.env.SNAPSHOT_OUT);
  await client.destroy();
} else {
  const n = Number(process.argv[2] ?? 1);
  const token = makeBotToken(APP_ID);
  const emu = await startEmulator({ applicationId: APP_ID, botToken: token, guilds: generateGuilds(n) });
  const child = spawn(process.execPath, ['--expose-gc', '--conditions=@feedbot/source', '--import', tsxUrl('.'), fileURLToPath(import.meta.url)], {
    env: { ...process.env, SNAPSHOT_API_URL: emu.apiUrl, SNAPSHOT_TOKEN: token, SNAPSHOT_OUT: process.argv[3] ?? '' },
    stdio: 'inherit',
  });
  await once(child, 'exit');
  await emu.close();
}
