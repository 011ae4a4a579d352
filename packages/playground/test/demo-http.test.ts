/**
 * `npm run demo -- --http`: the same demo with the bot in INTERACTIONS_MODE=http, so the emulator
 * POSTs every signed interaction to the bot's Interactions Endpoint instead of dispatching it over
 * the gateway. Driven through the playground's JSON API only (the page itself is covered by the
 * browser test, over the gateway); what crossed HTTP is read from the emulator's delivery log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InteractionSnapshot } from '@feedbot/discord-emulator';
import { DEMO_CHANNEL_IDS } from '@feedbot/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from '../src/demo.js';
import { silentLogger } from '../src/log.js';

const ADMIN = { actor: 'admin', locale: 'en-US' } as const;

let dir: string;
let demo: RunningDemo;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'feedbot-demo-http-'));
  demo = await startDemo({ dataDir: dir, port: 0, simulateMs: false, transport: 'http', logger: silentLogger() });
}, 90_000);

afterAll(async () => {
  await demo?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${demo.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const deliveriesOf = (interactionId: string) => demo.stack.emulator.deliveries.filter((d) => d.interactionId === interactionId);

describe('the demo with interactions over HTTP', () => {
  it('saves the bot as the Interactions Endpoint, sets the demo key through it and says so in /api/state', async () => {
    expect(demo.transport).toBe('http');
    expect(demo.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/interactions$/);
    expect(demo.stack.emulator.interactionsEndpointUrl).toBe(demo.endpoint);
    // The portal's two checks, then /apikey set and its form, all POSTed to the bot.
    const kinds = demo.stack.emulator.deliveries.map((d) => d.kind);
    expect(kinds.slice(0, 2)).toEqual(['ping_bad_signature', 'ping']);
    expect(kinds.filter((k) => k === 'interaction').length).toBeGreaterThanOrEqual(2);
    expect(demo.autoKey).toEqual({ ok: true, answer: 'API key saved' });
    const state = (await fetch(`${demo.url}/api/state`).then((r) => r.json())) as Record<string, unknown>;
    expect(state).toMatchObject({ transport: 'http', endpoint: demo.endpoint, replicas: 1, bot: { running: true } });
  });

  it('a command and an autocomplete sent through the playground API are POSTed to the bot and answered', async () => {
    const sent = await post('/api/commands', { commandName: 'stats', channelId: DEMO_CHANNEL_IDS[0], ...ADMIN });
    expect(sent.status).toBe(201);
    const id = (sent.body as unknown as InteractionSnapshot).id;
    const done = await demo.stack.emulator.interaction(id)!.waitForFinal({ timeoutMs: 15_000 });
    expect(done.original?.embeds?.[0]?.title).toBe('Forwarding statistics');
    const [delivery] = deliveriesOf(id);
    expect(delivery).toMatchObject({ kind: 'interaction', url: demo.endpoint, status: expect.any(Number) });
    expect(['accepted', 'deferred']).toContain(delivery!.outcome);

    // Autocomplete is answered in the HTTP response itself, within Discord's 3 s.
    const suggested = await post('/api/autocomplete', {
      commandName: 'feed',
      subcommand: 'posts',
      options: { id: 'nasa' },
      focused: 'id',
      channelId: DEMO_CHANNEL_IDS[0],
      ...ADMIN,
    });
    expect(suggested.status).toBe(200);
    expect(JSON.stringify(suggested.body.choices)).toContain('@nasa');
    const last = demo.stack.emulator.deliveries.at(-1)!;
    expect(last).toMatchObject({ kind: 'interaction', url: demo.endpoint, outcome: 'accepted' });
  });

  it('with the bot stopped, a command is refused as offline instead of POSTed to nobody', async () => {
    await demo.stack.bot!.stop();
    const before = demo.stack.emulator.deliveries.length;
    const refused = await post('/api/commands', { commandName: 'stats', channelId: DEMO_CHANNEL_IDS[0], ...ADMIN });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/offline/);
    expect(demo.stack.emulator.deliveries).toHaveLength(before);
  });
});
