/**
 * `/sandbox/media/<file>` and `/sandbox/p/<code>`: the sandbox's generated images and post pages,
 * fetched over its HTTPS with its own CA. Browsers do not trust that self-signed certificate, so
 * the playground rewrites sandbox URLs in messages to these paths instead. Only those two public
 * routes are reachable; nothing else of the sandbox (the API, keys) is exposed.
 */
import type { ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import { sendText } from './http.js';

const ALLOWED = /^\/(media\/[A-Za-z0-9._-]{1,100}|p\/[A-Za-z0-9._-]{1,100})$/;
const PASS_TYPES = /^(image\/(png|svg\+xml|jpeg|gif|webp)|text\/html)\b/;

export interface SandboxProxy {
  handle(res: ServerResponse, path: string): Promise<void>;
  close(): Promise<void>;
}

export function createSandboxProxy(opts: { origin: string; caPem: string; timeoutMs?: number }): SandboxProxy {
  const origin = new URL(opts.origin).origin;
  const agent = new Agent({ connect: { ca: opts.caPem }, headersTimeout: opts.timeoutMs ?? 5000, bodyTimeout: opts.timeoutMs ?? 5000 });
  return {
    async handle(res, path) {
      const target = path.slice('/sandbox'.length);
      if (!ALLOWED.test(target)) return sendText(res, 404, 'not found');
      let upstream;
      try {
        upstream = await request(`${origin}${target}`, { dispatcher: agent, method: 'GET' });
      } catch {
        return sendText(res, 502, 'the sandbox did not answer');
      }
      const type = String(upstream.headers['content-type'] ?? '');
      if (upstream.statusCode !== 200 || !PASS_TYPES.test(type)) {
        await upstream.body.dump();
        return sendText(res, upstream.statusCode === 200 ? 502 : upstream.statusCode, 'not available');
      }
      let body = Buffer.from(await upstream.body.arrayBuffer());
      // A post page links its image by the sandbox URL: point it at this proxy as well.
      if (type.startsWith('text/html')) body = Buffer.from(body.toString('utf8').split(origin).join('/sandbox'));
      res.writeHead(200, {
        'content-type': type,
        'content-length': body.length,
        'cache-control': 'public, max-age=300',
        'x-content-type-options': 'nosniff',
        // Served from the playground's origin: no scripts, whatever the page contains.
        'content-security-policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
      });
      res.end(body);
    },
    close: () => agent.close(),
  };
}
