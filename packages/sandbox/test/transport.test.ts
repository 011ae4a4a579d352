/**
 * HTTPS only: the certificate is a trust anchor for Node (as `ca`, which is how the bot's
 * FEED_API_CA_FILE uses it, and as NODE_EXTRA_CA_CERTS for other Node processes),
 * plain HTTP on the same port gets a JSON refusal, and every response of every kind carries the
 * rate-limit headers.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, CHANNEL, expectErrorBody, expectRateHeaders, sharedTestSandbox, startTestSandbox, type ApiResponse } from './helpers.js';

const sb = sharedTestSandbox({ rateLimit: { limit: 1_000_000 } });

function plainHttp(path: string, headers: Record<string, string> = {}, body?: string): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: sb().port, path, method: body ? 'POST' : 'GET', headers, timeout: 5000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

/** Raw bytes over a connection; resolves with everything the server sent before closing. */
function rawExchange(bytes: string, useTls: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = useTls
      ? tlsConnect({ host: '127.0.0.1', port: sb().port, ca: sb().caPem, servername: 'localhost' })
      : netConnect({ host: '127.0.0.1', port: sb().port });
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer'));
    }, 5000);
    socket.setEncoding('utf8');
    socket.on(useTls ? 'secureConnect' : 'connect', () => socket.write(bytes));
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', () => undefined);
  });
}

function parseRaw(raw: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n\r\n')) };
}

describe('TLS', () => {
  it('Node trusts the certificate from the CA file, for 127.0.0.1 and localhost, with verification on', async () => {
    const ca = await readFile(sb().caFile, 'utf8');
    const agent = new Agent({ connect: { ca } });
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        const res = await request(`https://${host}:${sb().port}/health`, { dispatcher: agent });
        expect(res.statusCode).toBe(200);
        expect(await res.body.json()).toEqual({ ok: true });
      }
    } finally {
      await agent.close();
    }
  });

  it('without trusting it, the connection fails: the certificate is really checked', async () => {
    const agent = new Agent();
    try {
      const err = await request(`${sb().url}/health`, { dispatcher: agent }).catch((e: unknown) => e as Error & { code?: string });
      expect(err).toBeInstanceOf(Error);
      expect((err as { code?: string }).code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
    } finally {
      await agent.close();
    }
  });

  it('works through NODE_EXTRA_CA_CERTS in a fresh Node process (for Node clients other than the bot)', async () => {
    const script = `fetch(${JSON.stringify(`${sb().url}/health`)}).then(r => r.text()).then(t => { process.stdout.write(t); }, e => { process.stdout.write('ERR ' + (e.cause && e.cause.code)); process.exitCode = 1; })`;
    const run = (env: NodeJS.ProcessEnv) =>
      new Promise<{ code: number | null; out: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ['-e', script], { env, stdio: ['ignore', 'pipe', 'ignore'], timeout: 15_000 });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out }));
      });
    const { NODE_EXTRA_CA_CERTS: _ignored, ...baseEnv } = process.env;
    const trusted = await run({ ...baseEnv, NODE_EXTRA_CA_CERTS: sb().caFile });
    expect(trusted).toEqual({ code: 0, out: '{"ok":true}' });
    const untrusted = await run(baseEnv);
    expect(untrusted.code).toBe(1);
    expect(untrusted.out).toMatch(/^ERR /);
  });
});

describe('plain HTTP is refused', () => {
  it('403 https_required in JSON, with rate-limit headers, for any path, and with a valid key', async () => {
    const { key } = await sb().admin.createScratchServer(ALL_SCOPES);
    for (const path of ['/feeds', '/stats', '/feeds/1/posts?limite=5', '/openapi.json', '/']) {
      const res = await plainHttp(path, { authorization: `Bearer ${key}` });
      expect(res.status, path).toBe(403);
      expectErrorBody(res, 'https_required');
      expectRateHeaders(res);
      expect(res.headers.connection).toBe('close');
      expect((res.json as { error: { mensaje: string } }).error.mensaje).toContain(sb().url);
    }
  });

  it('a plain POST changes nothing', async () => {
    const { guildId, key } = await sb().admin.createScratchServer(ALL_SCOPES);
    const res = await plainHttp('/feeds', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, JSON.stringify({ cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] }));
    expect(res.status).toBe(403);
    expect(await sb().admin.listFeeds(guildId)).toEqual([]);
  });

  it('garbage that is neither TLS nor HTTP still gets a JSON answer with the headers', async () => {
    const raw = parseRaw(await rawExchange('\x00\x01garbage\r\n\r\n', false));
    expect(raw.status).toBe(403);
    expect(raw.body).toMatchObject({ error: { codigo: 'https_required' } });
    expect(raw.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
    expect(raw.headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
  });

  it('malformed HTTP inside TLS gets a JSON 400 with the headers', async () => {
    const raw = parseRaw(await rawExchange('GET /feeds HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', true));
    expect(raw.status).toBe(400);
    expect(raw.body).toMatchObject({ error: { codigo: 'bad_request' } });
    expect(raw.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
    expect(raw.headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
  });
});

describe('headers on every response', () => {
  it('200, 201, 400, 401, 403 (scope, plan), 404, 429 and public routes all carry both headers', async () => {
    const limited = await startTestSandbox({ rateLimit: { limit: 12 } });
    try {
      const { guildId, key } = await limited.admin.createScratchServer(['feeds:read', 'feeds:write']);
      const free = await limited.admin.createScratchServer(ALL_SCOPES, { plan: 'free' });
      const feed = await limited.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
      const post = await limited.admin.addPost(guildId, feed.id);
      const responses: [string, ApiResponse][] = [
        ['200', await limited.call('GET', '/feeds', { key })],
        ['201', await limited.call('POST', '/feeds', { key, body: { cuenta: 'x', canalId: CHANNEL, tipos: ['post'] } })],
        ['400', await limited.call('POST', '/feeds', { key, body: {} })],
        ['401', await limited.call('GET', '/feeds')],
        ['403 scope', await limited.call('GET', '/stats', { key })],
        ['403 plan', await limited.call('GET', '/feeds', { key: free.key })],
        ['404', await limited.call('GET', '/feeds/999999/posts', { key })],
        ['404 route', await limited.call('GET', '/nope', { key })],
        ['openapi', await limited.call('GET', '/openapi.json')],
        ['media', await limited.call('GET', `/media/${post.code}.svg`)],
        ['media 404', await limited.call('GET', '/media/nothing.png')],
      ];
      for (let i = 0; i < 12; i++) await limited.call('GET', '/feeds', { key });
      responses.push(['429', await limited.call('GET', '/feeds', { key })]);
      const statuses = responses.map(([, r]) => r.status);
      expect(statuses).toEqual([200, 201, 400, 401, 403, 403, 404, 404, 200, 200, 404, 429]);
      for (const [name, res] of responses) {
        expect(res.headers['x-ratelimit-remaining'], name).toMatch(/^\d+$/);
        expect(res.headers['x-ratelimit-reset'], name).toMatch(/^\d{10}$/);
        if (res.status >= 400) expectErrorBody(res);
      }
    } finally {
      await limited.dispose();
    }
  });
});
