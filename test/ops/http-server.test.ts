/**
 * The ops listener over a real socket: its three routes, 404 and 405 for everything else, HEAD,
 * a failing scrape, and close() with a keep-alive connection still open.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { startOpsServer, type OpsServer, type OpsServerOptions } from '../../src/ops/http-server.js';
import type { Readiness } from '../../src/ops/readiness.js';

let server: OpsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const READY: Readiness = { ready: true, shards: { '0': 'Ready' }, keyStore: 'ok', problems: [] };

async function start(overrides: Partial<OpsServerOptions> = {}): Promise<OpsServer> {
  server = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
    scrape: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '# TYPE up gauge\nup 1\n' }),
    readiness: async () => READY,
    ...overrides,
  });
  return server;
}

async function get(s: OpsServer, path: string, method: 'GET' | 'HEAD' | 'POST' | 'DELETE' = 'GET') {
  const res = await request(`${s.url}${path}`, { method });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

describe('the ops listener', () => {
  it('binds where it is told and reports the port it got', async () => {
    const s = await start();
    expect(s.url).toBe(`http://127.0.0.1:${s.port}`);
    expect(s.port).toBeGreaterThan(0);
  });

  it('/healthz answers 200 while the process runs', async () => {
    const r = await get(await start({ readiness: async () => ({ ...READY, ready: false }) }), '/healthz');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toEqual({ alive: true });
    expect(r.headers['cache-control']).toBe('no-store');
  });

  it('/readyz is 200 with the report when ready, 503 with what is not ready otherwise', async () => {
    let report = READY;
    const s = await start({ readiness: async () => report });
    const ok = await get(s, '/readyz');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toEqual(READY);
    report = { ready: false, shards: { '0': 'Connecting' }, keyStore: 'timeout', problems: ['gateway shard 0 is Connecting', 'key store: timeout'] };
    const no = await get(s, '/readyz');
    expect(no.status).toBe(503);
    expect(no.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(no.text)).toEqual(report);
  });

  it('/metrics serves the exposition with its content type; a query string does not matter', async () => {
    const s = await start();
    for (const path of ['/metrics', '/metrics?name[]=up']) {
      const r = await get(s, path);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(r.text).toBe('# TYPE up gauge\nup 1\n');
    }
  });

  it('HEAD answers the headers without a body', async () => {
    const r = await get(await start(), '/metrics', 'HEAD');
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBe(String('# TYPE up gauge\nup 1\n'.length));
    expect(r.text).toBe('');
  });

  it('any other path is a 404 and any other method a 405 naming the allowed ones', async () => {
    const s = await start();
    for (const path of ['/', '/metrics/', '/healthz/x', '/__proto__', '/constructor', '/..%2fmetrics']) {
      expect((await get(s, path)).status, path).toBe(404);
    }
    const post = await get(s, '/metrics', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect((await get(s, '/readyz', 'DELETE')).status).toBe(405);
  });

  it('a failing scrape is a 500 that tells nothing of the failure', async () => {
    const s = await start({
      scrape: () => Promise.reject(new Error('boom: secret-path /var/lib/feedbot')),
    });
    const r = await get(s, '/metrics');
    expect(r.status).toBe(500);
    expect(r.text).not.toContain('boom');
    expect(r.text).not.toContain('/var/lib');
    // And the listener keeps serving.
    expect((await get(s, '/healthz')).status).toBe(200);
  });

  it('close() resolves with a keep-alive connection still open, and is idempotent', async () => {
    const s = await start();
    expect((await get(s, '/healthz')).status).toBe(200); // undici keeps the socket alive
    const closed = Promise.all([s.close(), s.close()]);
    await expect(closed).resolves.toBeDefined();
    await expect(request(`${s.url}/healthz`)).rejects.toThrow();
    server = undefined;
  });

  it('a port in use is one clear error naming METRICS_PORT', async () => {
    const first = await start();
    await expect(startOpsServer({ host: '127.0.0.1', port: first.port, logger: silentLogger(), scrape: async () => ({ contentType: 'text/plain', body: '' }), readiness: async () => READY })).rejects.toThrow(
      /127\.0\.0\.1:\d+ is already in use: choose another METRICS_PORT/,
    );
  });
});
