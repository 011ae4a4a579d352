/**
 * What the e2e files that start, roll and stop bot processes share: a process's /readyz as a
 * status code, polling until something holds, and whether a pid is still a live process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'undici';

/** The ops listener's /readyz on `port` (127.0.0.1): its status, or 0 when nothing answered in time. */
export async function readyz(port: number, timeoutMs = 2_000): Promise<number> {
  try {
    const res = await request(`http://127.0.0.1:${port}/readyz`, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return 0;
  }
}

/** Polls `check` until it returns a value, or fails after `timeoutMs` with the last reason it threw. */
export async function eventually<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>, pollMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
      last = undefined;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`);
}

/** Is `pid` a live process (not gone, not a zombie waiting to be reaped)? Linux's /proc. */
export function alive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    // "pid (comm) S ...": the state follows the last ')'.
    const text = readFileSync(stat, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const STORES = ['sqlite', 'postgres', 'redis'] as const;
export type DeployStore = (typeof STORES)[number];

/**
 * The stores the deploy stories run on: every one, or those FEEDBOT_DEPLOY_STORES lists
 * (`sqlite`, `postgres`, `redis`, comma-separated). .ci/run runs all three on the machine's Node
 * and SQLite alone on the other Nodes of the matrix: these stories hold 4 to 10 bot processes
 * for a minute each, and what they prove does not depend on the Node version.
 */
export function deployStores(): DeployStore[] {
  const listed = process.env.FEEDBOT_DEPLOY_STORES;
  if (listed === undefined || listed.trim() === '') return [...STORES];
  const picked = listed.split(',').map((s) => s.trim());
  const unknown = picked.filter((s) => !(STORES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`FEEDBOT_DEPLOY_STORES: unknown store ${unknown.join(', ')}; use ${STORES.join(', ')}`);
  return STORES.filter((s) => picked.includes(s));
}
