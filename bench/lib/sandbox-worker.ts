/**
 * The sandbox (src/sandbox) in a worker thread, so the feed API has its own event loop as a
 * remote service would, and the bot's latencies measure the bot. The host talks to it through
 * bench/lib/sandbox.ts; every response the sandbox sends is counted by guild and status from its
 * own request log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../../src/logger.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import type { Scope } from '../../src/contract/feed-api.js';

export interface WorkerInit {
  rateLimit?: { limit?: number; windowMs?: number };
  /** Count responses (debug request log); off for pure throughput runs. */
  countRequests: boolean;
}

export type WorkerRequest =
  | { id: number; op: 'scratch'; scopes: Scope[]; rateLimit?: number | null; feeds: number }
  | { id: number; op: 'counts' }
  | { id: number; op: 'close' };

const init = workerData as WorkerInit;
const port = parentPort!;
const counts = new Map<string, Record<string, number>>();
const pattern = /"status":(\d+).*?"guild":"(\d+)"|"guild":"(\d+)".*?"status":(\d+)/;
const sink = new Writable({
  write(chunk: Buffer | string, _encoding, callback) {
    const line = chunk.toString();
    if (line.includes('"msg":"request"')) {
      const m = pattern.exec(line);
      const status = m?.[1] ?? m?.[4];
      const guild = m?.[2] ?? m?.[3] ?? 'unknown';
      if (status) {
        const byStatus = counts.get(guild) ?? {};
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        counts.set(guild, byStatus);
      }
    }
    callback();
  },
});

const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-sandbox-'));
let sandbox: RunningSandbox;
try {
  sandbox = await startSandbox({
    dataDir: dir,
    port: 0,
    seed: false,
    simulate: false,
    rateLimit: init.rateLimit ?? {},
    logger: createLogger({ name: 'sandbox', level: init.countRequests ? 'debug' : 'warn', destination: sink }),
  });
} catch (error) {
  port.postMessage({ id: 0, error: error instanceof Error ? error.message : String(error) });
  throw error;
}
port.postMessage({ id: 0, result: { url: sandbox.url, caPem: sandbox.caPem } });

let channel = 1_300_000_000_000_000_000n;
port.on('message', (req: WorkerRequest) => {
  void (async () => {
    try {
      switch (req.op) {
        case 'scratch': {
          const { guildId, key } = await sandbox.admin.createScratchServer(req.scopes, { rateLimit: req.rateLimit ?? null });
          const feedIds: number[] = [];
          const accounts = ['nasa', 'esa', 'natgeo', 'cocina.facil', 'spacex', 'bbcmundo', 'museo_prado', 'jaxa'];
          for (let i = 0; i < req.feeds; i++) {
            const feed = await sandbox.admin.createFeed(guildId, {
              cuenta: `${accounts[i % accounts.length]}${i >= accounts.length ? i : ''}`,
              canalId: String((channel += 1n)),
              tipos: i % 2 === 0 ? ['post', 'reel'] : ['story'],
              filtros: [],
            });
            feedIds.push(feed.id);
          }
          port.postMessage({ id: req.id, result: { guildId, key, feedIds } });
          return;
        }
        case 'counts':
          port.postMessage({ id: req.id, result: Object.fromEntries(counts) });
          return;
        case 'close':
          await sandbox.close();
          rmSync(dir, { recursive: true, force: true });
          port.postMessage({ id: req.id, result: null });
          port.close();
          return;
      }
    } catch (error) {
      port.postMessage({ id: req.id, error: error instanceof Error ? error.message : String(error) });
    }
  })();
});
