/**
 * Shared test plumbing: a sandbox in a temporary data folder and an HTTPS client that trusts its
 * certificate the way the bot does (as a CA, never with certificate checks turned off).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';
import { FeedListResponseSchema, type FeedListItem } from '@feedbot/feed-api-contract';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../src/index.js';

/** The package folder: its CLIs run from their sources, resolving workspace packages to theirs. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface TestSandbox extends RunningSandbox {
  agent: Agent;
  call: (method: string, path: string, init?: CallInit) => Promise<ApiResponse>;
  /** close() plus removing the data folder */
  dispose: () => Promise<void>;
}

export interface CallInit {
  key?: string | null;
  /** JSON-encoded unless a string (sent as is). */
  body?: unknown;
  headers?: Record<string, string>;
  contentType?: string | null;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export async function tempDir(prefix = 'sandbox-test-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function startTestSandbox(options: Partial<SandboxOptions> = {}): Promise<TestSandbox> {
  const dataDir = options.dataDir ?? (await tempDir());
  const sandbox = await startSandbox({ ...options, dataDir });
  const agent = new Agent({ connect: { ca: sandbox.caPem }, keepAliveTimeout: 1000 });
  const call = async (method: string, path: string, init: CallInit = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key) headers.authorization = `Bearer ${init.key}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      if (init.contentType !== null) headers['content-type'] = init.contentType ?? 'application/json';
    }
    const res = await request(`${sandbox.url}${path}`, {
      method: method as 'GET',
      headers,
      body,
      dispatcher: agent,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, json };
  };
  return {
    ...sandbox,
    agent,
    call,
    dispose: async () => {
      await agent.close().catch(() => undefined);
      await sandbox.close();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One sandbox for every test of the calling file: started before the first, disposed after the
 * last. Call the returned function inside tests (or hooks) to reach it.
 */
export function sharedTestSandbox(options: Partial<SandboxOptions> = {}): () => TestSandbox {
  let current: TestSandbox | undefined;
  beforeAll(async () => {
    current = await startTestSandbox(options);
  });
  afterAll(async () => {
    await current?.dispose();
  });
  return () => {
    if (!current) throw new Error('the shared sandbox only runs while the tests of its file do');
    return current;
  };
}

/** Both rate-limit headers, as non-negative integers; returns them. */
export function expectRateHeaders(res: Pick<ApiResponse, 'headers'>): { remaining: number; reset: number } {
  const remaining = res.headers['x-ratelimit-remaining'];
  const reset = res.headers['x-ratelimit-reset'];
  expect(typeof remaining, 'X-RateLimit-Remaining').toBe('string');
  expect(typeof reset, 'X-RateLimit-Reset').toBe('string');
  expect(remaining).toMatch(/^\d+$/);
  expect(reset).toMatch(/^\d{10}$/);
  return { remaining: Number(remaining), reset: Number(reset) };
}

/** The documented error body: { error: { codigo, mensaje, detalles? } }. */
export function expectErrorBody(res: ApiResponse, codigo?: string): { codigo: string; mensaje: string } {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json as { error?: { codigo?: unknown; mensaje?: unknown } };
  expect(typeof body?.error?.codigo).toBe('string');
  expect(typeof body?.error?.mensaje).toBe('string');
  if (codigo) expect(body.error?.codigo).toBe(codigo);
  return body.error as { codigo: string; mensaje: string };
}

/** GET /feeds with `key`, which must answer 200: the listed feeds. */
export async function listFeedsOverHttps(sb: TestSandbox, key: string): Promise<FeedListItem[]> {
  const res = await sb.call('GET', '/feeds', { key });
  expect(res.status).toBe(200);
  return FeedListResponseSchema.parse(res.json).feeds;
}

export const ALL_SCOPES = ['feeds:read', 'feeds:write', 'stats:read'] as const;
export const CHANNEL = '1100000000000000042';

/** The admin CLI as its own process (what `npm run sandbox:admin -- <args>` runs) over `dataDir`. */
export function runCliProcess(args: string[], dataDir: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@feedbot/source', '--import', 'tsx', 'src/cli.ts', ...args, '--data-dir', dataDir], {
      cwd: PACKAGE_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}
