/**
 * Whether this process can serve interactions: every gateway shard it runs is Ready, the key
 * store answers a real query within a short time, and it is not shutting down. The report says
 * what is not ready in words an operator can act on, and never carries a secret or a guild id.
 */
import { KeyStoreError } from '../keys/errors.js';
import { READY, statusName, type GatewaySource } from './gateway.js';
import { within } from '../within.js';

interface ReadinessSources {
  /** Absent in HTTP-interactions mode, where no gateway session exists. */
  gateway?: GatewaySource | undefined;
  /** A cheap real query of the key store (KeyStore.ping). */
  pingKeyStore(): Promise<void>;
  /** True once shutdown began: the process stops taking interactions. */
  stopping?(): boolean;
}

export interface Readiness {
  ready: boolean;
  /** Status of each shard by id, e.g. { "0": "Ready" }. */
  shards: Record<string, string>;
  /** `ok`, `timeout`, or `error (<code>)`. */
  keyStore: string;
  /** What is not ready, one line each; empty when ready. */
  problems: string[];
}

const DEFAULT_KEY_STORE_TIMEOUT_MS = 1_000;

export async function checkReadiness(sources: ReadinessSources, opts: { keyStoreTimeoutMs?: number } = {}): Promise<Readiness> {
  const problems: string[] = [];
  if (sources.stopping?.()) problems.push('shutting down');
  const shards: Record<string, string> = {};
  if (sources.gateway) {
    for (const [id, shard] of sources.gateway.shards) {
      shards[String(id)] = statusName(shard.status);
      if (shard.status !== READY) problems.push(`gateway shard ${id} is ${statusName(shard.status)}`);
    }
    if (sources.gateway.shards.size === 0) problems.push('no gateway shard yet (logging in)');
  }
  const keyStore = await keyStoreState(sources.pingKeyStore, opts.keyStoreTimeoutMs ?? DEFAULT_KEY_STORE_TIMEOUT_MS);
  if (keyStore !== 'ok') problems.push(`key store: ${keyStore}`);
  return { ready: problems.length === 0, shards, keyStore, problems };
}

async function keyStoreState(ping: () => Promise<void>, timeoutMs: number): Promise<string> {
  const answer = ping().then(
    () => 'ok',
    // The code only: a storage message may name a file path or a guild.
    (error: unknown) => `error (${error instanceof KeyStoreError ? error.code : 'unexpected'})`,
  );
  return within(answer, timeoutMs, () => 'timeout');
}
