/**
 * Scenario 10, part 2: resident memory of the real bot process once started, in HTTP mode and
 * in gateway mode, with 1 and with many guilds known to the emulator (each with its key in the
 * store). Over the gateway every guild arrives in READY and discord.js builds it; over HTTP
 * nothing does, so the bot should weigh the same at any number of guilds. Read as scenario 5
 * reads it: a settle time, a full GC in the child (its preloaded probe), then VmRSS and the heap.
 * A diagnostic separates the two things that grow with guilds: at the largest size the HTTP-mode
 * bot is also measured with the same guilds known to the emulator but a store holding one key.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateGuilds, makeBotToken, startEmulator } from '@feedbot/discord-emulator';
import type { ChildMemory } from './child.js';
import { allReady, APP_ID, spawnBot, storeKeys } from './http-bots.js';
import type { BenchSigner } from './signed-post.js';
import { sleep } from './time.js';

export interface MemoryPoint {
  guilds: number;
  http: ChildMemory;
  gateway: ChildMemory;
  /** HTTP mode with a store of one key (the largest size only). */
  httpOneKey?: ChildMemory;
}

export interface MemoryOptions {
  sizes: readonly number[];
  dir: string;
  signer: BenchSigner;
  settleMs: number;
  log(message: string): void;
}

export async function memoryPoints(opts: MemoryOptions): Promise<MemoryPoint[]> {
  const points: MemoryPoint[] = [];
  const largest = Math.max(...opts.sizes);
  for (const n of opts.sizes) {
    const dir = join(opts.dir, `memory-${n}`);
    mkdirSync(dir, { recursive: true });
    const guilds = generateGuilds(n);
    const databaseFile = join(dir, 'keys.sqlite');
    const oneKeyFile = join(dir, 'one-key.sqlite');
    const keys = new Map(guilds.map((g, i) => [g.id, `fbk_HttpMemory${String(i).padStart(8, '0')}KeyMaterialxxxxxxxx`]));
    opts.log(`  memory, ${n} guild(s): storing ${n} encrypted key(s)`);
    await storeKeys(databaseFile, keys);
    if (n === largest && n > 1) await storeKeys(oneKeyFile, new Map([...keys].slice(0, 1)));
    const token = makeBotToken(APP_ID);
    const emulator = await startEmulator({ applicationId: APP_ID, botToken: token, guilds, interactionsPrivateKey: opts.signer.privateKey });
    try {
      // Never contacted: no interaction arrives in this part.
      const env = { dir, token, discordApiUrl: emulator.apiUrl, publicKeyHex: opts.signer.publicKeyHex, feedApi: { url: 'https://127.0.0.1:9/v1' }, databaseFile };
      const measure = async (mode: 'http' | 'gateway', store = databaseFile) => {
        opts.log(`  memory, ${n} guild(s): ${mode} mode${store === databaseFile ? '' : ', one key in the store'}`);
        const bot = await spawnBot({ ...env, databaseFile: store }, mode);
        try {
          await allReady([bot], `${mode}-mode bot (${n} guilds)`);
          await sleep(opts.settleMs);
          return await bot.memory();
        } finally {
          await bot.stop();
        }
      };
      const point: MemoryPoint = { guilds: n, http: await measure('http'), gateway: await measure('gateway') };
      if (n === largest && n > 1) point.httpOneKey = await measure('http', oneKeyFile);
      points.push(point);
    } finally {
      await emulator.close();
    }
  }
  return points;
}
