/**
 * Over the gateway, a deleted channel that feeds forward into gets one channelDeleted audit event
 * with those feeds; /feed list noticing it later does not report it again. Nothing is looked up
 * for a guild without a key or for a category, and a failed lookup is logged, never thrown.
 */
import { Writable } from 'node:stream';
import { describe, expect, vi, type MockInstance } from 'vitest';
import { pino } from 'pino';
import { ChannelType, Events } from 'discord.js';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import type { AuditTrail } from '../../src/audit/events.js';
import { channelDeleted } from '../../src/health/channel-watch.js';
import { listenTo, type Listening } from '../../src/bot/gateway-listeners.js';
import { baseLoggerOptions } from '../../src/logger.js';
import { GUILD_ID, OTHER_GUILD_ID, chatInput } from '../helpers/discord.js';
import { botTest, rl, type BotHarness } from '../helpers/bot.js';
import { knowGuild } from '../bot/known-guilds.js';

const HERE = '1300000000000000001';
const GONE = '1300000000000000009';
const ELSEWHERE = '1300000000000000005';
const CATEGORY = '1300000000000000007';

const feed = (id: number, cuenta: string, canal: string): FeedListItem => ({ id, cuenta, canal, estado: 'activo', tipos: ['reel'], filtros: 1, ultimoPost: null });
const FEEDS = [feed(1, 'nasa', HERE), feed(2, 'esa', GONE), feed(3, 'jaxa', GONE)];

interface Watched {
  watch: Listening;
  record: MockInstance<AuditTrail['record']>;
  warnings: Record<string, unknown>[];
}

function watch(h: BotHarness): Watched {
  const warnings: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      warnings.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  const logger = pino(baseLoggerOptions({ level: 'warn' }), sink);
  const record = vi.spyOn(h.audit, 'record');
  const w = listenTo(h.discord.client, [channelDeleted], { api: h.client, keys: h.keys, settings: h.settings, audit: h.audit, logger });
  return { watch: w, record, warnings };
}

/**
 * A CHANNEL_DELETE from the gateway, handed to discord.js's own action (the harness never becomes
 * READY, and before READY discord.js queues such packets instead of handling them).
 */
function deleteChannel(h: BotHarness, id: string, guildId = GUILD_ID) {
  actions(h).ChannelDelete.handle({ id, type: ChannelType.GuildText, guild_id: guildId, name: `channel-${id.slice(-4)}`, position: 0, permission_overwrites: [] });
}
type Action = { handle(d: unknown): void };
const actions = (h: BotHarness) => (h.discord.client as unknown as { actions: { ChannelCreate: Action; ChannelDelete: Action } }).actions;

const serveFeeds = (h: BotHarness, feeds: readonly FeedListItem[], times = 1) =>
  h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds, total: feeds.length, plan: 'server' }, { headers: rl() }).times(times);
const deletions = (w: Watched) => w.record.mock.calls.filter(([, event]) => event.kind === 'channelDeleted');

describe('a channel deleted in Discord (gateway)', () => {
  botTest('records one channelDeleted event with the feeds that pointed to it', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE, GONE]);
    const w = watch(h);
    serveFeeds(h, FEEDS, 2);
    deleteChannel(h, GONE);
    await w.watch.settled();
    expect(deletions(w)).toEqual([
      [
        GUILD_ID,
        {
          kind: 'channelDeleted',
          channelId: GONE,
          channelName: 'channel-0009',
          feeds: [
            { id: 2, cuenta: 'esa', canalId: GONE, tipos: ['reel'] },
            { id: 3, cuenta: 'jaxa', canalId: GONE, tipos: ['reel'] },
          ],
        },
        undefined,
      ],
    ]);
    expect((await h.settings.get(GUILD_ID)).reportedDeletedChannels).toEqual([GONE]);

    // /feed list then marks the feeds, from the cache that no longer has the channel, and reports nothing more.
    await h.run(chatInput('feed', 'list'));
    const fields = (h.discord.callbacks().at(-1)!.body as { data: { embeds: { fields: { value: string }[] }[] } }).data.embeds[0]!.fields;
    expect(fields.map((f) => f.value.split('\n')[3] ?? null)).toEqual([null, '⚠️ Channel deleted', '⚠️ Channel deleted']);
    expect(deletions(w)).toHaveLength(1);
    w.watch.stop();
    expect(h.discord.client.listenerCount(Events.ChannelDelete)).toBe(0);
  });

  botTest('records nothing when no feed pointed to it (one look at the list, from its cache when fresh)', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE, GONE, ELSEWHERE]);
    const w = watch(h);
    serveFeeds(h, [feed(1, 'nasa', HERE)]);
    deleteChannel(h, ELSEWHERE);
    deleteChannel(h, GONE);
    await w.watch.settled();
    expect(deletions(w)).toEqual([]);
    expect((await h.settings.get(GUILD_ID)).reportedDeletedChannels).toEqual([]);
  });

  botTest('asks nothing for a guild without a key, nor for a category', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE]);
    knowGuild(h.discord.client, OTHER_GUILD_ID, [ELSEWHERE]);
    actions(h).ChannelCreate.handle({ id: CATEGORY, type: ChannelType.GuildCategory, guild_id: GUILD_ID, name: 'Archive', position: 0, permission_overwrites: [] });
    const w = watch(h);
    deleteChannel(h, ELSEWHERE, OTHER_GUILD_ID);
    deleteChannel(h, CATEGORY);
    await w.watch.settled();
    expect(deletions(w)).toEqual([]);
    // No interceptor was set: any request would have failed the lookup and been logged.
    expect(w.warnings).toEqual([]);
  });

  botTest('logs a failed lookup and goes on; /feed list reports the channel later', async ({ bot: h }) => {
    knowGuild(h.discord.client, GUILD_ID, [HERE, GONE]);
    const w = watch(h);
    // Once: a retry (if the policy makes one) finds no answer at all, and fails too.
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(503, { error: 'down' }, { headers: rl() });
    deleteChannel(h, GONE);
    await w.watch.settled();
    expect(deletions(w)).toEqual([]);
    expect(w.warnings).toEqual([expect.objectContaining({ msg: 'could not check the feeds of a deleted channel', guildId: GUILD_ID, channelId: GONE })]);
    expect(JSON.stringify(w.warnings)).not.toContain('fbk_');

    serveFeeds(h, FEEDS);
    await h.run(chatInput('feed', 'list'));
    expect(deletions(w)).toEqual([[GUILD_ID, expect.objectContaining({ kind: 'channelDeleted', channelId: GONE }), 'en-US']]);
  });
});
