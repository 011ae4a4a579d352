/**
 * Discord's gateway dropping the bot's connection and the bot resuming, with an interaction in
 * the middle: the bot as `createBot` wires it (real discord.js client, real key store, the feed
 * API on a MockAgent), logged in to the Discord emulator in this process. The emulator's
 * `requestReconnect()` sends op 7, as Discord does before moving a session; discord.js closes
 * the socket and RESUMEs, and the emulator replays what was dispatched meanwhile.
 * Either way the interaction must be answered exactly once, within Discord's deadline.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Events } from 'discord.js';
import { generateGuilds, makeBotToken, startEmulator, type DiscordEmulator, type GatewayEvent } from '@feedbot/discord-emulator';
import { createBot, type BotApp } from '../../src/app.js';
import { createCommands } from '../../src/commands.js';
import { createLogger } from '../../src/logger.js';
import { API_BASE, API_ORIGIN, SECRET, TEST_KEY, rl, sampleStats } from '../helpers/bot.js';
import { watchForCrashes } from './support.js';

watchForCrashes();

const APP_ID = '1200000000000000001';
const [GUILD] = generateGuilds(1);
const guildId = GUILD!.id;
const owner = { guildId, userId: GUILD!.ownerId };

let emu: DiscordEmulator;
let app: BotApp;
let agent: MockAgent;
let dir: string;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'feedbot-faults-gateway-'));
  const token = makeBotToken(APP_ID);
  emu = await startEmulator({ applicationId: APP_ID, botToken: token, guilds: [GUILD!] });
  agent = new MockAgent();
  agent.disableNetConnect();
  const logger = createLogger({ name: 'bot', level: 'debug', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  app = await createBot(
    {
      FEED_API_URL: API_BASE,
      FEED_API_TIMEOUT_MS: 5_000,
      KEY_ENCRYPTION_SECRET: SECRET,
      KEY_ENCRYPTION_SECRET_PREVIOUS: undefined,
      DATABASE_URL: join(dir, 'keys.sqlite'),
      DISCORD_API_URL: emu.apiUrl,
    },
    { logger, dispatcher: agent },
  );
  emu.setCommands(createCommands().map((c) => c.data.toJSON()));
  await app.keys.set(guildId, { apiKey: TEST_KEY, setBy: owner.userId, setAt: new Date().toISOString(), scopes: ['feeds:read', 'feeds:write', 'stats:read'] });
  const ready = once(app.client, Events.ClientReady);
  await app.client.login(token);
  await ready;
}, 30_000);

afterAll(async () => {
  await app?.stop();
  await emu?.close();
  await agent?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function nextGatewayEvent(type: GatewayEvent['type']): Promise<GatewayEvent> {
  return new Promise((resolve) => {
    const listener = (e: GatewayEvent) => {
      if (e.type !== type) return;
      emu.events.off('gateway', listener);
      resolve(e);
    };
    emu.events.on('gateway', listener);
  });
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const interactionLines = (id: string) => lines.filter((l) => l.msg === 'interaction' && l.interactionId === id);
const callbacksOf = (id: string) => emu.calls.filter((c) => c.method === 'POST' && c.path.startsWith(`/interactions/${id}/`));

describe('the gateway drops and the bot resumes', () => {
  it('while an interaction is being handled: it is answered once, in time, and logged once', async () => {
    agent.get(API_ORIGIN).intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats({ servidor: guildId }), { headers: rl() }).delay(600);
    const handle = emu.sendInteraction({ type: 'command', commandName: 'stats', ...owner });
    await until(() => app.router.inFlight === 1);
    const resumed = nextGatewayEvent('resume');
    expect(emu.requestReconnect()).toBe(1);
    const resumedAt = (await resumed).at;
    const final = await handle.waitForFinal({ timeoutMs: 5_000 });
    expect(final.ack).toMatchObject({ type: 4 });
    expect(final.ack!.at).toBeGreaterThan(resumedAt); // the drop really was mid-interaction
    expect(final.ack!.elapsedMs).toBeLessThan(3_000);
    expect(callbacksOf(final.id)).toHaveLength(1);
    expect(interactionLines(final.id)).toEqual([expect.objectContaining({ outcome: 'ok', command: 'stats' })]);
    expect(emu.violations).toEqual([]);
  });

  it('before the interaction is delivered: replayed on RESUME, answered once, in time, logged once', async () => {
    agent.get(API_ORIGIN).intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats({ servidor: guildId }), { headers: rl() });
    const closed = nextGatewayEvent('close');
    const resumed = nextGatewayEvent('resume');
    emu.requestReconnect();
    await closed;
    // The shard has no connection now: the emulator keeps the dispatch for the RESUME replay.
    const handle = emu.sendInteraction({ type: 'command', commandName: 'stats', ...owner, locale: 'es-ES' });
    expect(emu.shards()[0]!.connected).toBe(false);
    await resumed;
    const final = await handle.waitForFinal({ timeoutMs: 5_000 });
    expect(final.state).toBe('acknowledged');
    expect(final.ack!.elapsedMs).toBeLessThan(3_000);
    expect(callbacksOf(final.id)).toHaveLength(1);
    expect(interactionLines(final.id)).toEqual([expect.objectContaining({ outcome: 'ok' })]);
    expect(emu.violations).toEqual([]);
    agent.assertNoPendingInterceptors();
  });
});
