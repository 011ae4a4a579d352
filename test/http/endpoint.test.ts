/**
 * POST /interactions (INTERACTIONS_MODE=http) in front of the real bot (createBot with the
 * HTTP transport): real signatures made with a generated Ed25519 key, real HTTP over loopback,
 * discord.js REST captured. The first response travels in the HTTP answer, never as a callback.
 */
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InteractionSigner, RestRecorder, signInteraction } from '@feedbot/discord-emulator/testing';
import { createBot, type BotApp } from '../../src/app.js';
import { startInteractionsServer, MAX_BODY_BYTES, type HttpInteractionRequest, type InteractionsServer } from '../../src/http/interactions-server.js';
import { MemorySeenInteractions } from '../../src/http/replay.js';
import { publicKeyFromHex } from '../../src/http/signature.js';
import { silentLogger } from '../../src/logger.js';
import { chatInput } from '../helpers/discord.js';

const discordKey = new InteractionSigner();
const otherKey = new InteractionSigner();
let dir: string;
let bot: BotApp;
let recorder: RestRecorder;
let server: InteractionsServer;
let clock = Date.now();
const requests: HttpInteractionRequest[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'feedbot-http-'));
  recorder = new RestRecorder({ api: 'https://discord.test/api' });
  const agent = new MockAgent();
  agent.disableNetConnect();
  bot = await createBot(
    {
      FEED_API_URL: 'https://feeds.test/v1',
      KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 7),
      KEY_ENCRYPTION_SECRET_PREVIOUS: undefined,
      DATABASE_URL: `sqlite://${join(dir, 'keys.sqlite')}`,
      DISCORD_API_URL: undefined,
      FEED_API_TIMEOUT_MS: 2_000,
    },
    { logger: silentLogger(), dispatcher: agent, rest: recorder.rest, transport: 'http' },
  );
  server = await startInteractionsServer({
    host: '127.0.0.1',
    port: 0,
    publicKey: publicKeyFromHex(discordKey.publicKey),
    seen: new MemorySeenInteractions(() => clock),
    responses: bot.initialResponses!,
    dispatch: (raw) => bot.dispatch(raw),
    logger: silentLogger(),
    now: () => clock,
  });
  server.onRequest((r) => requests.push(r));
});

afterAll(async () => {
  await server?.close();
  await bot?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Sent {
  status: number;
  body: Record<string, unknown>;
}

async function post(body: string, headers: Record<string, string>): Promise<Sent> {
  const res = await request(`${server.url}/interactions`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

function signed(payload: object, opts: { key?: KeyObject; timestamp?: string } = {}): { body: string; headers: Record<string, string> } {
  return signInteraction(opts.key ?? discordKey.privateKey, payload, opts.timestamp ?? String(Math.floor(clock / 1000)));
}

const ping = () => ({ id: '1700000000000000001', application_id: '1200000000000000001', type: 1, token: 'ping-token', version: 1 });

describe('POST /interactions', () => {
  it('answers a signed PING with PONG', async () => {
    const { body, headers } = signed(ping());
    expect(await post(body, headers)).toEqual({ status: 200, body: { type: 1 } });
  });

  it('answers a command in the HTTP response, not through the callback endpoint', async () => {
    const raw = chatInput('stats', undefined);
    const { body, headers } = signed(raw);
    const answer = await post(body, headers);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(JSON.stringify(answer.body)).toMatch(/no feed API key yet/);
    expect(recorder.callbacks()).toEqual([]);
    expect(requests.at(-1)).toMatchObject({ outcome: 'answered' });
  });

  it('answers /apikey set with its modal', async () => {
    const { body, headers } = signed(chatInput('apikey', 'set'));
    const answer = await post(body, headers);
    expect(answer).toMatchObject({ status: 200, body: { type: 9, data: { custom_id: expect.any(String) } } });
  });

  it('refuses a request replayed with its valid signature', async () => {
    const { body, headers } = signed(chatInput('stats', undefined));
    expect((await post(body, headers)).status).toBe(200);
    expect(await post(body, headers)).toEqual({ status: 409, body: { error: 'interaction already received' } });
  });

  it('refuses a tampered body, a wrong key, missing headers and a stale timestamp with 401', async () => {
    const good = signed(chatInput('stats', undefined));
    expect((await post(good.body.replace('"stats"', '"STATS"'), good.headers)).status).toBe(401);
    const foreign = signed(chatInput('stats', undefined), { key: otherKey.privateKey });
    expect(await post(foreign.body, foreign.headers)).toEqual({ status: 401, body: { error: 'invalid request signature' } });
    expect((await post(good.body, {})).status).toBe(401);
    expect((await post(good.body, { ...good.headers, 'x-signature-ed25519': 'zz' })).status).toBe(401);
    const stale = signed(chatInput('stats', undefined), { timestamp: String(Math.floor(clock / 1000) - 301) });
    expect(await post(stale.body, stale.headers)).toEqual({ status: 401, body: { error: 'request timestamp too old or in the future' } });
    const future = signed(chatInput('stats', undefined), { timestamp: String(Math.floor(clock / 1000) + 301) });
    expect((await post(future.body, future.headers)).status).toBe(401);
    // None of them reached the bot.
    expect(recorder.calls).toEqual([]);
  });

  it('refuses bodies that are too large, not JSON, or not interactions', async () => {
    const huge = signed({ ...ping(), padding: 'x'.repeat(MAX_BODY_BYTES) });
    expect((await post(huge.body, huge.headers)).status).toBe(413);
    const form = signInteraction(discordKey.privateKey, 'type=1', String(Math.floor(clock / 1000)));
    const res = await request(`${server.url}/interactions`, { method: 'POST', body: form.body, headers: { ...form.headers, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.statusCode).toBe(415);
    await res.body.dump();
    const notInteraction = signed({ hello: 'world' });
    expect((await post(notInteraction.body, notInteraction.headers)).status).toBe(400);
    const get = await request(`${server.url}/interactions`);
    expect(get.statusCode).toBe(405);
    await get.body.dump();
    const elsewhere = await request(`${server.url}/`, { method: 'POST' });
    expect(elsewhere.statusCode).toBe(404);
    await elsewhere.body.dump();
  });

  it('counts every outcome for the metrics', () => {
    const outcomes = new Set(requests.map((r) => r.outcome));
    for (const o of ['ping', 'answered', 'replayed', 'bad_signature', 'stale', 'too_large', 'bad_request']) expect(outcomes).toContain(o);
  });

  it('remembers ids only as long as a timestamp can pass', async () => {
    const seen = new MemorySeenInteractions(() => clock);
    expect(await seen.firstTime('1')).toBe(true);
    expect(await seen.firstTime('1')).toBe(false);
    clock += 10 * 60_000 + 1;
    expect(await seen.firstTime('1')).toBe(true);
  });
});
