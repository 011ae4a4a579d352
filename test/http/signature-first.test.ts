/**
 * The README promises that POST /interactions verifies the signature "before reading anything
 * else". An unsigned request with `content-type: text/plain` must get 401 like every other
 * unsigned request, not 415, which would tell an unauthenticated caller something about what the
 * endpoint accepts. Only a request Discord signed learns that its body must be JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { InteractionSigner, signInteraction } from '@feedbot/discord-emulator/testing';
import { InitialResponses } from '../../src/http/initial-response.js';
import { startInteractionsServer, type InteractionsServer } from '../../src/http/interactions-server.js';
import { MemorySeenInteractions } from '../../src/http/replay.js';
import { publicKeyFromHex } from '../../src/http/signature.js';
import { silentLogger } from '../../src/logger.js';

const discord = new InteractionSigner();
const stranger = new InteractionSigner();
let server: InteractionsServer;

beforeAll(async () => {
  server = await startInteractionsServer({
    host: '127.0.0.1',
    port: 0,
    publicKey: publicKeyFromHex(discord.publicKey),
    seen: new MemorySeenInteractions(),
    responses: new InitialResponses(),
    dispatch: () => false,
    logger: silentLogger(),
  });
});
afterAll(() => server?.close());

async function post(body: string, headers: Record<string, string>): Promise<number> {
  const res = await request(`${server.url}/interactions`, { method: 'POST', body, headers });
  await res.body.dump();
  return res.statusCode;
}

describe('POST /interactions checks the signature before the content type', () => {
  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', ''])('an unsigned body sent as %j is a 401', async (contentType) => {
    expect(await post('{"type":1}', contentType ? { 'content-type': contentType } : {})).toBe(401);
  });

  it('signature headers that sign nothing, sent as text/plain, are a 401', async () => {
    const headers = { 'x-signature-ed25519': '00'.repeat(64), 'x-signature-timestamp': String(Math.floor(Date.now() / 1000)), 'content-type': 'text/plain' };
    expect(await post('{"type":1}', headers)).toBe(401);
  });

  it('a body signed by another key, sent as text/plain, is a 401', async () => {
    const forged = signInteraction(stranger.privateKey, '{"type":1}');
    expect(await post(forged.body, { ...forged.headers, 'content-type': 'text/plain' })).toBe(401);
  });

  it('a body Discord signed but sent as text/plain is a 415', async () => {
    const signed = signInteraction(discord.privateKey, 'type=1');
    expect(await post(signed.body, { ...signed.headers, 'content-type': 'text/plain' })).toBe(415);
  });
});
