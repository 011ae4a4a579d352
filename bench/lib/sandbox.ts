/**
 * Host side of the sandbox worker: start it, make guilds with keys and feeds, read how many
 * responses of each status it sent to each guild, and an undici Agent that trusts its certificate.
 */
import { Worker } from 'node:worker_threads';
import { Agent } from 'undici';
import { tsxUrl } from './tsx.js';
import type { Scope } from '@feedbot/feed-api-contract';
import type { WorkerInit } from './sandbox-worker.js';

export interface ScratchGuild {
  guildId: string;
  key: string;
  feedIds: number[];
}

export interface BenchSandbox {
  url: string;
  caPem: string;
  /** An undici dispatcher trusting the sandbox's certificate (TLS checks on). */
  agent(): Agent;
  guild(opts?: { feeds?: number; rateLimit?: number | null; scopes?: Scope[] }): Promise<ScratchGuild>;
  /**
   * Responses sent so far, by guild id then status code. A response's log line can trail the
   * response itself, so this reads until two reads 100 ms apart agree.
   */
  counts(): Promise<Record<string, Record<string, number>>>;
  /** Starts the scenario-7 baseline (bare fastify HTTPS route sending `body`); returns its URL. */
  bare(body: string): Promise<string>;
  close(): Promise<void>;
}

const ALL_SCOPES: Scope[] = ['feeds:read', 'feeds:write', 'stats:read'];

/** Workers do not inherit tsx's loader: register it inside the worker, then load the module. */
export function startTsWorker(module: URL, workerData: unknown): Worker {
  const tsx = tsxUrl('./esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

export async function startBenchSandbox(init: WorkerInit): Promise<BenchSandbox> {
  const worker = startTsWorker(new URL('./sandbox-worker.ts', import.meta.url), init);
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let nextId = 1;
  const ready = new Promise<{ url: string; caPem: string }>((resolve, reject) => {
    pending.set(0, { resolve: resolve as (v: unknown) => void, reject });
  });
  worker.on('message', (msg: { id: number; result?: unknown; error?: string }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.reject(new Error(`sandbox: ${msg.error}`));
    else p.resolve(msg.result);
  });
  worker.on('error', (error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  });
  const call = <T>(req: Record<string, unknown>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...req, id });
    });

  const { url, caPem } = await ready;
  const agents: Agent[] = [];
  return {
    url,
    caPem,
    agent() {
      const agent = new Agent({ connect: { ca: caPem } });
      agents.push(agent);
      return agent;
    },
    guild: (opts = {}) => call<ScratchGuild>({ op: 'scratch', scopes: opts.scopes ?? ALL_SCOPES, rateLimit: opts.rateLimit ?? null, feeds: opts.feeds ?? 4 }),
    async counts() {
      let previous = JSON.stringify(await call({ op: 'counts' }));
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const current = await call<Record<string, Record<string, number>>>({ op: 'counts' });
        if (JSON.stringify(current) === previous) return current;
        previous = JSON.stringify(current);
      }
    },
    bare: async (body) => (await call<{ url: string }>({ op: 'bare', body })).url,
    async close() {
      await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
      await call({ op: 'close' }).catch(() => undefined);
      await worker.terminate();
    },
  };
}
