/**
 * Start-up: over the gateway, login starts as soon as the discord.js client exists and
 * runs while the key and settings stores open. What the client emits meanwhile (the ready event,
 * interactions, deleted channels) is held until the bot's listeners and ops are in place
 * (BotApp.connected()), then emitted in order: nothing is handled before the stores are open, and
 * nothing is lost.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateGuilds, makeBotToken, startEmulator, type DiscordEmulator, type GatewayEvent } from '@feedbot/discord-emulator';
import { createBot, type BotApp } from '../../src/app.js';
import { holdEvents } from '../../src/bot/held-events.js';
import { createCommands } from '../../src/commands.js';
import { createLogger } from '../../src/logger.js';
import { API_BASE, API_ORIGIN, SECRET, TEST_KEY, rl, sampleStats } from '../helpers/bot.js';

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('holdEvents', () => {
  it('delivers nothing while held, then everything in order, to listeners attached meanwhile too; then lets events through', async () => {
    const client = new Client({ intents: [GatewayIntentBits.Guilds] });
    const early: string[] = [];
    client.on('a' as never, (n: number) => early.push(`a${n}`));
    const held = holdEvents(client);
    expect(client.emit('a' as never, 1 as never)).toBe(true);
    // As emit() says: whether anyone listens (discord.js warns about 'ready' listeners from it).
    expect(client.emit('b' as never, 2 as never)).toBe(false);
    const late: string[] = [];
    client.on('b' as never, (n: number) => late.push(`b${n}`));
    client.on('a' as never, (n: number) => late.push(`a${n}`));
    client.emit('a' as never, 3 as never);
    expect(early).toEqual([]);
    expect(late).toEqual([]);
    held.release();
    expect(early).toEqual(['a1', 'a3']);
    expect(late).toEqual(['a1', 'b2', 'a3']);
    held.release();
    client.emit('b' as never, 4 as never);
    expect(late).toEqual(['a1', 'b2', 'a3', 'b4']);
    expect(Object.hasOwn(client, 'emit')).toBe(false);
    await client.destroy();
  });

  it('never holds raw packets and debug lines: they go to whoever listens now (a login to 10,000 servers is 10,000 raw GUILD_CREATEs)', async () => {
    const client = new Client({ intents: [GatewayIntentBits.Guilds] });
    const seen: string[] = [];
    client.on(Events.Raw, (packet: { t: string }) => seen.push(`raw ${packet.t}`));
    client.on(Events.Debug, (line: string) => seen.push(`debug ${line}`));
    const held = holdEvents(client);
    client.emit(Events.Raw, { t: 'GUILD_CREATE' } as never);
    client.emit(Events.Debug, 'hello');
    client.emit(Events.GuildCreate, {} as never);
    expect(seen).toEqual(['raw GUILD_CREATE', 'debug hello']);
    const late: string[] = [];
    client.on(Events.Raw, () => late.push('raw'));
    client.on(Events.GuildCreate, () => late.push('guildCreate'));
    held.release();
    // Only what was held comes after release: the raw packet was already delivered, once.
    expect(seen).toEqual(['raw GUILD_CREATE', 'debug hello']);
    expect(late).toEqual(['guildCreate']);
    await client.destroy();
  });
});

describe('createBot with connect: login beside the stores', () => {
  const APP_ID = '1200000000000000001';
  const [GUILD] = generateGuilds(1);
  const owner = { guildId: GUILD!.id, userId: GUILD!.ownerId };
  const lines: Record<string, unknown>[] = [];
  let emu: DiscordEmulator;
  let app: BotApp;
  let agent: MockAgent;
  let dir: string;
  let token: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feedbot-login-beside-stores-'));
    token = makeBotToken(APP_ID);
    emu = await startEmulator({ applicationId: APP_ID, botToken: token, guilds: [GUILD!], identifyWindowMs: 0 });
    emu.setCommands(createCommands().map((c) => c.data.toJSON()));
    agent = new MockAgent();
    agent.disableNetConnect();
  });

  afterAll(async () => {
    await app?.stop();
    await emu?.close();
    await agent?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the ready event and an interaction until connected(), then answers it once', async () => {
    const identified = new Promise<void>((resolve) => {
      const listener = (e: GatewayEvent) => {
        if (e.type !== 'identify') return;
        emu.events.off('gateway', listener);
        resolve();
      };
      emu.events.on('gateway', listener);
    });
    const logger = createLogger({ name: 'bot', level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
    app = await createBot(
      {
        FEED_API_URL: API_BASE,
        FEED_API_TIMEOUT_MS: 5_000,
        KEY_ENCRYPTION_SECRET: SECRET,
        KEY_ENCRYPTION_SECRET_PREVIOUS: undefined,
        DATABASE_URL: join(dir, 'keys.sqlite'),
        DISCORD_API_URL: emu.apiUrl,
      },
      { logger, dispatcher: agent, connect: (client) => client.login(token) },
    );
    // Login was started by createBot itself, not after it.
    await identified;
    await app.keys.set(owner.guildId, { apiKey: TEST_KEY, setBy: owner.userId, setAt: new Date().toISOString(), scopes: ['feeds:read', 'feeds:write', 'stats:read'] });
    await until(() => app.client.isReady(), 'the gateway session ready');
    // What the held client emits is observed without letting it through.
    const emitted: string[] = [];
    const heldEmit = app.client.emit.bind(app.client);
    Object.defineProperty(app.client, 'emit', {
      configurable: true,
      writable: true,
      value: (event: never, ...args: never[]) => (emitted.push(String(event)), heldEmit(event, ...args)),
    });
    agent.get(API_ORIGIN).intercept({ path: '/v1/stats', method: 'GET' }).reply(200, sampleStats({ servidor: owner.guildId }), { headers: rl() });
    const handle = emu.sendInteraction({ type: 'command', commandName: 'stats', ...owner });
    await until(() => emitted.includes(Events.InteractionCreate), 'the interaction reaching the client');
    expect(app.router.inFlight).toBe(0);
    expect(lines.some((l) => l.msg === 'ready')).toBe(false);
    expect(emu.calls.filter((c) => c.path.startsWith('/interactions/'))).toEqual([]);

    const readyEvent = once(app.client, Events.ClientReady);
    await app.connected();
    await readyEvent;
    expect(lines.filter((l) => l.msg === 'ready')).toHaveLength(1);
    const final = await handle.waitForFinal({ timeoutMs: 5_000 });
    expect(final.ack).toMatchObject({ type: 4 });
    expect(final.ack!.elapsedMs).toBeLessThan(3_000);
    expect(emu.calls.filter((c) => c.method === 'POST' && c.path.startsWith(`/interactions/${final.id}/`))).toHaveLength(1);
    expect(emu.violations).toEqual([]);
  }, 30_000);

  it('a store that cannot be opened stops the login it started', async () => {
    await app?.stop();
    await until(() => emu.shards().every((s) => !s.connected), 'the first bot gone');
    let client: Client | undefined;
    let login: Promise<unknown> | undefined;
    const failed = await createBot(
      {
        FEED_API_URL: API_BASE,
        FEED_API_TIMEOUT_MS: 5_000,
        KEY_ENCRYPTION_SECRET: SECRET,
        KEY_ENCRYPTION_SECRET_PREVIOUS: undefined,
        DATABASE_URL: join(dir, 'no-such-folder', 'keys.sqlite'),
        DISCORD_API_URL: emu.apiUrl,
      },
      {
        logger: createLogger({ name: 'bot', level: 'silent' }),
        connect: (c) => {
          client = c;
          login = c.login(token);
          return login;
        },
      },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(Error);
    expect(client).toBeDefined();
    // Destroyed: no session left open, whether the login had got through or not.
    const settled = await Promise.race([login!.then(() => 'logged in', () => 'login failed'), new Promise((resolve) => setTimeout(resolve, 15_000, 'pending'))]);
    expect(settled).not.toBe('pending');
    await until(() => emu.shards().every((s) => !s.connected), 'no session left');
    expect(client!.isReady()).toBe(false);
  }, 30_000);
});
