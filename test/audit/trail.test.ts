/**
 * The audit trail with a real discord.js client (REST recorded) and the real settings store on a
 * temp SQLite file: what it posts, in which order and language, and what a failed post leaves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAuditTrail } from '../../src/audit/trail.js';
import type { AuditEvent, AuditTrail } from '../../src/audit/events.js';
import { createLogger } from '../../src/logger.js';
import { GuildSettingsStore } from '../../src/settings/store.js';
import { createTestDiscord, type TestDiscord } from '../helpers/discord.js';
import { AUDIT_CHANNEL_ID, answerRest, auditPosts, discordError, loadIntoCache, type AuditPostBody, type World } from './discord-world.js';

const GUILD = '1100000000000000001';
const OTHER = '1100000000000000002';
const USER = '1400000000000000001';
const NOW = Date.parse('2026-11-23T19:00:00.000Z');
const world: World = { guildId: GUILD, everyone: 0n, botRole: 0n, channels: [{ id: AUDIT_CHANNEL_ID, name: 'audit' }] };

const keySet = (masked: string): AuditEvent => ({ kind: 'keySet', actor: { userId: USER }, masked, replaced: false });

let dir: string;
let discord: TestDiscord;
let settings: GuildSettingsStore;
let trail: AuditTrail;
let logs: Record<string, unknown>[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'feedbot-audit-'));
  logs = [];
  const logger = createLogger({ name: 'test', level: 'debug', destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) } });
  discord = createTestDiscord();
  settings = await GuildSettingsStore.open({ databaseUrl: join(dir, 'settings.sqlite'), logger });
  trail = createAuditTrail({ client: discord.client, settings, logger, now: () => NOW });
});

afterEach(async () => {
  await trail.flush();
  await discord.destroy();
  await settings.close();
  rmSync(dir, { recursive: true, force: true });
});

const setChannel = (guildId = GUILD, channelId = AUDIT_CHANNEL_ID) => settings.update(guildId, (s) => ({ ...s, auditChannelId: channelId }));
const posted = (channelId = AUDIT_CHANNEL_ID) => auditPosts(discord.recorder, channelId).map((c) => c.body as AuditPostBody);
const titles = () => posted().flatMap((b) => b.embeds.map((e) => e.title));

describe('posting', () => {
  it('posts nothing for a guild without an audit channel', async () => {
    trail.record(GUILD, keySet('••••AAAA'), 'en-US');
    await trail.flush();
    expect(discord.calls).toEqual([]);
  });

  it('returns at once and posts one embed per event, in order, without pings', async () => {
    await setChannel();
    trail.record(GUILD, keySet('••••AAAA'), 'en-US');
    // record() returned before anything was sent.
    expect(discord.calls).toEqual([]);
    await trail.flush();
    trail.record(GUILD, keySet('••••BBBB'), 'en-US');
    await trail.flush();
    const bodies = posted();
    expect(bodies.map((b) => b.embeds.map((e) => e.fields![0]!.value))).toEqual([['`••••AAAA`'], ['`••••BBBB`']]);
    expect(bodies.every((b) => b.allowed_mentions.parse.length === 0)).toBe(true);
    expect(bodies[0]!.embeds[0]!.timestamp).toBe('2026-11-23T19:00:00.000Z');
  });

  it('events that pile up while a post is on its way leave together, 10 embeds a message at most', async () => {
    await setChannel();
    discord.latencyMs = 200;
    const masks = Array.from({ length: 13 }, (_, i) => `••••${String(i).padStart(4, '0')}`);
    trail.record(GUILD, keySet(masks[0]!), 'en-US');
    // The first post is on its way: the others queue behind it.
    await vi.waitFor(() => expect(posted()).toHaveLength(1), { interval: 5 });
    for (const masked of masks.slice(1)) trail.record(GUILD, keySet(masked), 'en-US');
    await trail.flush();
    const bodies = posted();
    expect(bodies.map((b) => b.embeds.length)).toEqual([1, 10, 2]);
    expect(bodies.flatMap((b) => b.embeds.map((e) => e.fields![0]!.value))).toEqual(masks.map((m) => `\`${m}\``));
  });
  it('an event recorded before the audit posts were turned on is not posted, though its post reads the settings after', async () => {
    // A post reads the settings a moment after its event: an admin may choose the channel in
    // between (on another replica). Only events from then on are posted.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowReads = Object.create(settings) as GuildSettingsStore;
    slowReads.get = async (guildId) => {
      await gate;
      return settings.get(guildId);
    };
    let clock = NOW;
    const late = createAuditTrail({ client: discord.client, settings: slowReads, logger: createLogger({ name: 'test', level: 'silent' }), now: () => clock });
    late.record(GUILD, keySet('••••OLD1'), 'en-US');
    clock = NOW + 2;
    await settings.update(GUILD, (s) => ({ ...s, auditChannelId: AUDIT_CHANNEL_ID, auditSince: NOW + 1 }));
    late.record(GUILD, keySet('••••NEW1'), 'en-US');
    release();
    await late.flush();
    expect(posted().flatMap((b) => b.embeds.map((e) => e.fields![0]!.value))).toEqual(['`••••NEW1`']);
  });
});

describe('language', () => {
  it('the language of whoever caused it, without a guild that chose one', async () => {
    await setChannel();
    trail.record(GUILD, keySet('••••AAAA'), 'es-ES');
    trail.record(GUILD, keySet('••••BBBB'));
    await trail.flush();
    expect(titles()).toEqual(['Clave de API establecida', 'API key set']);
  });

  it("a Community server's preferred language wins (gateway cache)", async () => {
    loadIntoCache(discord.client, { ...world, community: 'es-419' });
    await setChannel();
    trail.record(GUILD, keySet('••••AAAA'), 'en-US');
    await trail.flush();
    expect(posted()[0]!.embeds[0]!.title).toBe('Clave de API establecida');
  });

  it("a server that is not a Community one reads en-US: the actor's language is used instead", async () => {
    loadIntoCache(discord.client, world);
    await setChannel();
    trail.record(GUILD, keySet('••••AAAA'), 'es-ES');
    await trail.flush();
    expect(posted()[0]!.embeds[0]!.title).toBe('Clave de API establecida');
  });
});

describe('a post that fails', () => {
  it('is logged once with a reference, kept for status, and changes nothing for the other guilds', async () => {
    await setChannel();
    await setChannel(OTHER, '1300000000000000888');
    answerRest(discord.recorder, world, { post: (call) => (call.path.includes(AUDIT_CHANNEL_ID) ? discordError(403, 50013, 'Missing Permissions') : undefined) });
    expect(() => trail.record(GUILD, keySet('••••AAAA'), 'en-US')).not.toThrow();
    trail.record(OTHER, keySet('••••BBBB'), 'en-US');
    await trail.flush();

    const warnings = logs.filter((l) => l.msg === 'audit post failed');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, guildId: GUILD, channelId: AUDIT_CHANNEL_ID, kinds: ['keySet'], reason: 'missing_permissions', status: 403, code: 50013 });
    const ref = warnings[0]!.ref as string;
    expect(ref).toMatch(/^[A-Z2-9]{8}$/);
    // Only the kind of failure: not the request, not the embed.
    expect(JSON.stringify(warnings[0])).not.toContain('AAAA');

    expect((await settings.get(GUILD)).auditFailure).toEqual({ at: NOW, reason: 'missing_permissions', channelId: AUDIT_CHANNEL_ID, reported: false, ref });
    expect((await settings.get(OTHER)).auditFailure).toBeUndefined();
    expect(posted('1300000000000000888')).toHaveLength(1);
  });

  it('a deleted channel reads unknown_channel; the next post goes out again when the channel is back', async () => {
    await setChannel();
    let gone = true;
    answerRest(discord.recorder, world, { post: () => (gone ? discordError(404, 10003, 'Unknown Channel') : undefined) });
    trail.record(GUILD, keySet('••••AAAA'), 'en-US');
    await trail.flush();
    expect((await settings.get(GUILD)).auditFailure?.reason).toBe('unknown_channel');
    gone = false;
    trail.record(GUILD, keySet('••••BBBB'), 'en-US');
    await trail.flush();
    expect(posted()).toHaveLength(2);
    expect(logs.filter((l) => l.msg === 'audit post failed')).toHaveLength(1);
  });

  it('a refused channel costs one request: the events queued behind are dropped and counted in the one warn line', async () => {
    await setChannel();
    let refused = true;
    answerRest(discord.recorder, world, { post: () => (refused ? discordError(403, 50001, 'Missing Access') : undefined) });
    discord.latencyMs = 200;
    trail.record(GUILD, keySet('••••0000'), 'en-US');
    // The first post is on its way: 25 more queue behind it.
    await vi.waitFor(() => expect(posted()).toHaveLength(1), { interval: 5 });
    for (let i = 1; i <= 25; i++) trail.record(GUILD, keySet(`••••${String(i).padStart(4, '0')}`), 'en-US');
    await trail.flush();

    expect(posted()).toHaveLength(1);
    const warnings = logs.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ msg: 'audit post failed', guildId: GUILD, kinds: ['keySet'], reason: 'missing_access', status: 403, code: 50001, dropped: 25 });
    expect((await settings.get(GUILD)).auditFailure).toMatchObject({ reason: 'missing_access', reported: false, ref: warnings[0]!.ref });

    // Once the queue is empty, the next event tries again: the admin may have fixed the channel.
    refused = false;
    discord.latencyMs = 0;
    trail.record(GUILD, keySet('••••9999'), 'en-US');
    await trail.flush();
    expect(posted()).toHaveLength(2);
    expect(posted()[1]!.embeds.map((e) => e.fields![0]!.value)).toEqual(['`••••9999`']);
  });

  it('a refusal of one message only (not the channel) leaves the events behind it to be posted', async () => {
    await setChannel();
    let calls = 0;
    answerRest(discord.recorder, world, { post: () => (calls++ === 0 ? discordError(400, 50035, 'Invalid Form Body') : undefined) });
    discord.latencyMs = 200;
    trail.record(GUILD, keySet('••••0000'), 'en-US');
    await vi.waitFor(() => expect(posted()).toHaveLength(1), { interval: 5 });
    for (let i = 1; i < 4; i++) trail.record(GUILD, keySet(`••••${String(i).padStart(4, '0')}`), 'en-US');
    await trail.flush();

    expect(posted().map((b) => b.embeds.length)).toEqual([1, 3]);
    const warning = logs.find((l) => l.msg === 'audit post failed');
    expect(warning).toMatchObject({ reason: 'discord_50035', status: 400 });
    expect(warning).not.toHaveProperty('dropped');
  });

  it('settings that cannot be read cost the post, never the caller', async () => {
    await setChannel();
    await settings.close();
    expect(() => trail.record(GUILD, keySet('••••AAAA'), 'en-US')).not.toThrow();
    await trail.flush();
    expect(discord.calls).toEqual([]);
    expect(logs.find((l) => l.msg === 'audit posts not attempted')).toMatchObject({ level: 40, guildId: GUILD, kinds: ['keySet'] });
  });
});
