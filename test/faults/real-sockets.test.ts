/**
 * Fault matrix over real sockets: what MockAgent cannot fake. A local HTTPS server on 127.0.0.1
 * (with the certificate the sandbox generates) answers like the feed API; the bot's client
 * reaches it through a real undici Agent whose connector decides, per connection, whether the
 * certificate is trusted, or connects to a closed port instead. Every response closes its
 * connection, so each request meets the connector. Faults:
 *  - untrusted certificate: the Agent without the sandbox CA (what a MITM or a misconfigured
 *    FEED_API_CA_FILE looks like); the TLS handshake fails, no request reaches the server;
 *  - reset after the request arrived: the server reads the request, then destroys the socket;
 *  - refused: nothing listens on the port.
 * The server counts what actually reached it: a create is received once, never repeated.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, buildConnector } from 'undici';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { freePort } from '@feedbot/playground';
import { startSandbox } from '@feedbot/sandbox';
import { GUILD_ID } from '../helpers/discord.js';
import { TEST_KEY, botTest, type BotHarness } from '../helpers/bot.js';
import { silentLogger } from '../../src/logger.js';
import type { MessageKey } from '../../src/i18n/index.js';
import type { ResponseEvent } from '../../src/api/response-events.js';
import { FAMILIES, NEW_KEY, runFamily, type Family, type Method } from './families.js';
import { unconfirmedOf } from './api-faults.js';
import { LEVEL, apiRequests, catalogueFor, interactionLine, visibleAnswer, watchForCrashes } from './support.js';

watchForCrashes();

type Mode = 'healthy' | 'untrusted' | 'reset' | 'refused';
interface RealFault {
  mode: Exclude<Mode, 'healthy'>;
  label: string;
  /** Requests that reach the server, by method. */
  reached: Record<Method, number>;
  /** Attempts the client makes, by method. */
  attempts: Record<Method, number>;
  key: MessageKey;
  /** The code the log line's error carries. */
  code: RegExp;
}

const REAL_FAULTS: RealFault[] = [
  {
    mode: 'untrusted',
    label: 'untrusted certificate (real TLS, CA not given)',
    reached: { GET: 0, POST: 0, DELETE: 0 },
    attempts: { GET: 1, POST: 1, DELETE: 1 },
    key: 'error.connection',
    code: /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/,
  },
  {
    mode: 'reset',
    label: 'connection reset after the request arrived (real socket)',
    reached: { GET: 3, POST: 1, DELETE: 3 },
    attempts: { GET: 3, POST: 1, DELETE: 3 },
    key: 'error.connection',
    code: /UND_ERR_SOCKET|ECONNRESET/,
  },
  {
    mode: 'refused',
    label: 'connection refused (real closed port)',
    reached: { GET: 0, POST: 0, DELETE: 0 },
    attempts: { GET: 3, POST: 3, DELETE: 3 },
    key: 'error.connection',
    code: /ECONNREFUSED/,
  },
];

const state = { mode: 'healthy' as Mode };
const hits: string[] = [];
const api = { baseUrl: '', dispatcher: undefined as unknown as Agent };
let dir: string;
let server: Server;

/** Healthy answers by `METHOD path`, from the families' own healthy answers. */
const healthy = new Map<string, { status: number; body: unknown }>(FAMILIES.flatMap((f) => f.targets.map((t) => [`${t.method} ${t.path}`, t.ok] as const)));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'feedbot-faults-tls-'));
  // The sandbox generates a self-signed certificate for 127.0.0.1 on first start: borrow it.
  const sandbox = await startSandbox({ dataDir: dir, logger: silentLogger() });
  const caPem = sandbox.caPem;
  await sandbox.close();
  server = createServer({ cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) }, (req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      if (state.mode === 'reset') return void req.socket.destroy();
      const ok = healthy.get(`${req.method} ${req.url}`) ?? { status: 404, body: { error: 'not found' } };
      const reset = String(Math.floor(Date.now() / 1000) + 60);
      res.writeHead(ok.status, { 'content-type': 'application/json', connection: 'close', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': reset });
      res.end(JSON.stringify(ok.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const closedPort = await freePort();
  const trusting = buildConnector({ ca: caPem });
  const untrusting = buildConnector({});
  api.baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  api.dispatcher = new Agent({
    connect: (opts, callback) => {
      if (state.mode === 'untrusted') return untrusting(opts, callback);
      if (state.mode === 'refused') return trusting({ ...opts, port: String(closedPort) }, callback);
      return trusting(opts, callback);
    },
  });
}, 30_000);

afterAll(async () => {
  await api.dispatcher?.destroy();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// These cells share one server and one switch: they run one after the other.
botTest.override({ harness: { api, timeoutMs: 1_000 } });

async function runReal(h: BotHarness, f: Family, fault: RealFault) {
  const events: ResponseEvent[] = [];
  h.client.onResponse((e) => events.push(e));
  state.mode = 'healthy';
  hits.length = 0;
  try {
    // A confirmation to press is asked from the cached list: fill it from the real server.
    if (f.prepare) await h.client.listFeeds({ apiKey: TEST_KEY, guildId: GUILD_ID });
    const raw = await runFamily(h, f, 'en-US', () => {
      state.mode = fault.mode;
      hits.length = 0;
      events.length = 0;
    });
    return { raw, events, hits: [...hits] };
  } finally {
    state.mode = 'healthy';
  }
}

describe.each(REAL_FAULTS)('$label', (fault) => {
  for (const f of FAMILIES.filter((x) => x.targets.length > 0)) {
    botTest(`${f.id}: ${f.answer === 'choices' ? 'an empty list' : 'private explanation'}; the server got ${f.write ? 'the write once at most' : 'what the policy sends'}`, async ({ bot: h }) => {
      const { raw, events, hits: received } = await runReal(h, f, fault);
      const target = f.targets[0]!;
      const line = interactionLine(h, raw);
      const seen = visibleAnswer(h, raw, f.sourcePrivate);
      expect(apiRequests(h), 'nothing went to the MockAgent').toBe(0);
      if (f.writesKey) {
        // The key probe cannot check anything: the answer still matches what was stored.
        const saved = seen.text?.includes(`••••${NEW_KEY.slice(-4)}`) ?? false;
        expect(seen.private).toBe(true);
        expect((await h.keys.get(GUILD_ID))?.apiKey).toBe(saved ? NEW_KEY : TEST_KEY);
        return;
      }
      expect(received.filter((r) => r === `${target.method} ${target.path}`)).toHaveLength(fault.reached[target.method]);
      const failures = events.filter((e) => e.method === target.method && e.kind === 'connection');
      expect(failures).toHaveLength(fault.attempts[target.method]);
      for (const e of failures) expect(e.kind === 'connection' && e.systemCode, 'the fault is the one named').toMatch(fault.code);
      if (f.answer === 'choices') {
        expect(seen).toMatchObject({ via: 'choices', choices: [] });
        expect(line).toMatchObject({ outcome: 'ok' });
        return;
      }
      expect(seen.private).toBe(true);
      // A write whose connection was cut after the request arrived may have been done: with the
      // list cut too, the user is told to look before trying again.
      const unconfirmed = fault.mode === 'reset' ? unconfirmedOf(f) : undefined;
      const t = catalogueFor('en-US');
      expect(seen.text).toBe(unconfirmed ? t(unconfirmed.key, unconfirmed.vars) : t(fault.key));
      expect(line).toMatchObject({ outcome: 'api_unreachable', level: LEVEL.warn, upstreamStatus: null, cause: expect.stringMatching(fault.code) });
      expect(line.ref).toBeUndefined();
    });
  }

  // Some log line must say why the API was unreachable: with `err` on the interaction line only
  // at level error and no systemCode on the debug line, none would, at any level.
  botTest('/stats: the interaction line and every attempt’s debug line name the cause (TLS or system error code)', async ({ bot: h }) => {
    const { raw } = await runReal(h, FAMILIES.find((x) => x.id === '/stats')!, fault);
    expect(interactionLine(h, raw).cause).toMatch(fault.code);
    const attempts = h.logs.filter((l) => l.msg === 'feed api request');
    expect(attempts).toHaveLength(fault.attempts.GET);
    for (const l of attempts) expect(l).toMatchObject({ status: 'connection', cause: expect.stringMatching(fault.code) });
    expect(h.rawLogs.join('\n')).not.toContain(TEST_KEY);
  });
});
