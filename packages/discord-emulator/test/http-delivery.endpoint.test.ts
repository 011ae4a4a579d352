/**
 * Setting the Interactions Endpoint URL as the Developer Portal does: the PING with a bad signature
 * must get 401, the signed PING a PONG, else the URL is refused. The key pair, the control route,
 * PATCH /applications/@me, the start option, HTTPS, and the signing helpers for a bot's tests.
 */
import { createPublicKey, verify } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { generate } from 'selfsigned';
import { InteractionSigner, InteractionsEndpointError, type DiscordEmulator } from '../src/index.js';
import { signInteraction, verifyInteractionSignature } from '../src/testing/index.js';
import { APP_ID, GUILD_ID, SIMPLE_COMMANDS, TOKEN, startTestEmulator } from './helpers.js';
import { startTestEndpoint, type TestEndpoint, type TestEndpointOptions } from './interactions-endpoint.js';

const SEED = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const NOT_VERIFIED = 'The specified interactions endpoint URL could not be verified.';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function emulator(overrides: Parameters<typeof startTestEmulator>[0] = {}): Promise<DiscordEmulator> {
  const emu = await startTestEmulator(overrides);
  cleanup.push(() => emu.close());
  return emu;
}

async function endpoint(opts: TestEndpointOptions): Promise<TestEndpoint> {
  const ep = await startTestEndpoint(opts);
  cleanup.push(() => ep.close());
  return ep;
}

const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as InteractionsEndpointError);

describe('the Developer Portal checks', () => {
  it('a PING with a bad signature gets 401 and a signed PING a PONG: the URL is saved', async () => {
    const emu = await emulator();
    const ep = await endpoint({ publicKey: () => emu.publicKey });
    expect(emu.publicKey).toMatch(/^[0-9a-f]{64}$/);
    expect(emu.interactionsEndpointUrl).toBeNull();
    await expect(emu.setInteractionsEndpoint(ep.url)).resolves.toBe(ep.url);
    expect(emu.interactionsEndpointUrl).toBe(ep.url);
    expect(ep.requests.map((r) => r.verified)).toEqual([false, true]);
    for (const r of ep.requests) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toBe('Discord-Interactions/1.0 (+https://discord.com)');
      expect(r.headers['x-signature-ed25519']).toMatch(/^[0-9a-f]{128}$/);
      expect(Math.abs(Number(r.headers['x-signature-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
      expect(JSON.parse(r.raw)).toMatchObject({ type: 1, application_id: APP_ID, version: 1 });
    }
    expect(emu.deliveries.map((d) => [d.kind, d.status, d.outcome])).toEqual([
      ['ping_bad_signature', 401, 'accepted'],
      ['ping', 200, 'accepted'],
    ]);
    expect(emu.deliveries[1]!.answer).toEqual({ type: 1 });
  });

  it('an endpoint that takes any signature is refused, and the URL saved before is kept', async () => {
    const emu = await emulator();
    const good = await endpoint({ publicKey: () => emu.publicKey });
    const careless = await endpoint({ publicKey: () => emu.publicKey, verifySignatures: false });
    await emu.setInteractionsEndpoint(good.url);
    const error = await rejection(emu.setInteractionsEndpoint(careless.url));
    expect(error).toBeInstanceOf(InteractionsEndpointError);
    expect(error!.check).toBe('bad_signature');
    expect(error!.message).toContain(`interactions_endpoint_url: ${NOT_VERIFIED}`);
    expect(error!.reason).toMatch(/invalid X-Signature-Ed25519 was answered 200, not 401/);
    expect(careless.requests).toHaveLength(1); // the signed PING is not even sent
    expect(emu.interactionsEndpointUrl).toBe(good.url);
    expect(emu.deliveries.at(-1)).toMatchObject({ kind: 'ping_bad_signature', status: 200, outcome: 'refused' });
  });

  it('an endpoint that does not verify with this public key fails the signed PING; bad URLs are refused before any request', async () => {
    const emu = await emulator();
    const other = new InteractionSigner();
    const wrongKey = await endpoint({ publicKey: () => other.publicKey });
    const error = await rejection(emu.setInteractionsEndpoint(wrongKey.url));
    expect(error).toMatchObject({ check: 'ping', reason: 'the signed PING was answered 401, not 200' });
    const closedPort = wrongKey.url.replace(/:\d+\//, ':1/');
    expect(await rejection(emu.setInteractionsEndpoint(closedPort))).toMatchObject({ check: 'bad_signature', reason: expect.stringMatching(/got no answer \(connect ECONNREFUSED/), unanswered: true });
    expect(await rejection(emu.setInteractionsEndpoint('http://example.com/interactions'))).toMatchObject({ check: 'url', reason: expect.stringMatching(/plain http is allowed on this machine only/) });
    expect(await rejection(emu.setInteractionsEndpoint('ftp://127.0.0.1/x'))).toMatchObject({ check: 'url' });
    expect(emu.interactionsEndpointUrl).toBeNull();
  });
});

describe('where the URL is set', () => {
  it('the control API: PUT /_emulator/application/interactions-endpoint, with the public key in GET /_emulator', async () => {
    const emu = await emulator();
    const good = await endpoint({ publicKey: () => emu.publicKey });
    const careless = await endpoint({ publicKey: () => emu.publicKey, verifySignatures: false });
    const put = (url: string | null) =>
      fetch(`${emu.controlUrl}/application/interactions-endpoint`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
    const info = await (await fetch(emu.controlUrl)).json();
    expect(info).toMatchObject({ publicKey: emu.publicKey, interactionsEndpointUrl: null });

    const saved = await put(good.url);
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual({ id: APP_ID, publicKey: emu.publicKey, interactionsEndpointUrl: good.url });

    const refused = await put(careless.url);
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.error).toContain(NOT_VERIFIED);
    expect(body.details).toMatchObject({
      check: 'bad_signature',
      code: 50035,
      errors: { interactions_endpoint_url: { _errors: [{ code: 'APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID', message: NOT_VERIFIED }] } },
    });
    expect((await (await put(null)).json()).interactionsEndpointUrl).toBeNull();
    const deliveries = await (await fetch(`${emu.controlUrl}/deliveries`)).json();
    expect(deliveries.map((d: { kind: string }) => d.kind)).toEqual(['ping_bad_signature', 'ping', 'ping_bad_signature']);
  });

  it('PATCH /applications/@me {interactions_endpoint_url}, as a bot may; verify_key is the public key', async () => {
    const emu = await emulator();
    const good = await endpoint({ publicKey: () => emu.publicKey });
    const careless = await endpoint({ publicKey: () => emu.publicKey, verifySignatures: false });
    const patch = (url: string | null) =>
      fetch(`${emu.restUrl}/applications/@me`, {
        method: 'PATCH',
        headers: { authorization: `Bot ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ interactions_endpoint_url: url }),
      });
    const ok = await patch(good.url);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ verify_key: emu.publicKey, interactions_endpoint_url: good.url });
    const refused = await patch(careless.url);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: { interactions_endpoint_url: { _errors: [{ code: 'APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID', message: NOT_VERIFIED }] } },
    });
    expect(emu.violations.map((v) => v.kind)).toEqual(['invalid_form_body']);
    expect(emu.interactionsEndpointUrl).toBe(good.url);
  });

  it('the interactionsEndpointUrl option is checked once listening; a failing one stops the start', async () => {
    const publicKey = new InteractionSigner(SEED).publicKey;
    const good = await endpoint({ publicKey: () => publicKey });
    const emu = await emulator({ interactionsPrivateKey: SEED, interactionsEndpointUrl: good.url });
    expect(emu.publicKey).toBe(publicKey);
    expect(emu.interactionsEndpointUrl).toBe(good.url);
    const careless = await endpoint({ publicKey: () => publicKey, verifySignatures: false });
    await expect(startTestEmulator({ interactionsPrivateKey: SEED, interactionsEndpointUrl: careless.url })).rejects.toBeInstanceOf(InteractionsEndpointError);
  });
});

describe('HTTPS endpoints', () => {
  it('a self-signed certificate is trusted through endpointCa, and only then', async () => {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    const trusting = await emulator({ endpointCa: pems.cert });
    trusting.setCommands(SIMPLE_COMMANDS, GUILD_ID);
    const ep = await endpoint({ publicKey: () => trusting.publicKey, tls: { key: pems.private, cert: pems.cert } });
    expect(ep.url).toMatch(/^https:/);
    await trusting.setInteractionsEndpoint(ep.url);
    ep.handle(() => ({ body: { type: 4, data: { content: 'over TLS' } } }));
    const answer = await trusting.sendInteraction({ type: 'command', commandName: 'ping' }).waitForFinal();
    expect(answer.original?.content).toBe('over TLS');

    const distrusting = await emulator();
    const error = await rejection(distrusting.setInteractionsEndpoint(ep.url));
    expect(error).toMatchObject({ check: 'bad_signature', reason: expect.stringMatching(/SELF_SIGNED|self[- ]signed/i) });
  });
});

describe('keys and signatures for a bot’s tests', () => {
  it('a fixed private key gives the same public key; signInteraction signs as the emulator does', async () => {
    const emu = await emulator({ interactionsPrivateKey: SEED });
    // RFC 8032, test 1: this seed's public key.
    expect(emu.publicKey).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    expect(emu.signer.privateKeyHex()).toBe(SEED);
    const body = JSON.stringify({ type: 1 });
    const signed = signInteraction(emu.signer.privateKey, body, 1_700_000_000);
    expect(signed.timestamp).toBe('1700000000');
    expect(signed.headers).toMatchObject({ 'x-signature-ed25519': signed.signature, 'x-signature-timestamp': '1700000000', 'content-type': 'application/json' });
    expect(verifyInteractionSignature(emu.publicKey, signed.signature, signed.timestamp, body)).toBe(true);
    const jwk = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(emu.publicKey, 'hex').toString('base64url') }, format: 'jwk' });
    expect(verify(null, Buffer.from(signed.timestamp + body), jwk, Buffer.from(signed.signature, 'hex'))).toBe(true);
    // Tampered or replayed with another timestamp: no longer verifies.
    expect(verifyInteractionSignature(emu.publicKey, signed.signature, signed.timestamp, body.replace('1', '2'))).toBe(false);
    expect(verifyInteractionSignature(emu.publicKey, signed.signature, '1700000001', body)).toBe(false);
    // The same key as hex seed or PEM signs the same (Ed25519 is deterministic).
    const pem = emu.signer.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(signInteraction(SEED, body, 1_700_000_000).signature).toBe(signed.signature);
    expect(signInteraction(pem, { type: 1 }, new Date(1_700_000_000_000)).signature).toBe(signed.signature);
    expect(Math.abs(Number(signInteraction(SEED, body).timestamp) - Date.now() / 1000)).toBeLessThan(5);
  });
});
