/**
 * /apikey set ties the key to this server with everything the key can read: GET /stats `servidor`,
 * and where the key's feeds (GET /feeds `canal`) forward to. A key proven foreign is refused; one
 * that cannot be tied either way is stored as "ownership not verified", and says so.
 */
import { describe, expect, it } from 'vitest';
import { chatInput, GUILD_ID, modalSubmit, OTHER_GUILD_ID } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, sampleStats, type BotHarness } from '../helpers/bot.js';
import { judgeOwnership, type ChannelPlace } from '../../src/api-key/ownership.js';
import { knowGuild } from './known-guilds.js';

type Embed = { title?: string; description?: string; color?: number; fields?: { name: string; value: string }[] };
const NEW_KEY = 'fbk_NewKeyFromTheDashboard_QX81';
const HERE = '1300000000000000001';
const ELSEWHERE = '1300000000000000002';
const UNKNOWN = '1300000000000000077';

/** The feeds GET /feeds lists for the new key: one per channel id. */
const feedsIn = (...canals: string[]) => ({
  feeds: canals.map((canal, i) => ({ ...sampleFeeds.feeds[0]!, id: i + 1, canal })),
  total: canals.length,
  plan: 'server',
});

/** The three probe requests. `stats`: a body (200) or a status; GET /stats is retried on 5xx. */
function probe(h: BotHarness, answers: { feeds: ReturnType<typeof feedsIn>; stats: ReturnType<typeof sampleStats> | 403 | 500 }) {
  const auth = { authorization: `Bearer ${NEW_KEY}` };
  h.api.intercept({ path: '/v1/feeds', method: 'GET', headers: auth }).reply(200, answers.feeds, { headers: rl() });
  const stats = h.api.intercept({ path: '/v1/stats', method: 'GET', headers: auth });
  if (typeof answers.stats === 'object') stats.reply(200, answers.stats, { headers: rl() });
  else if (answers.stats === 403) stats.reply(403, { error: { codigo: 'missing_scope', mensaje: 'Falta el permiso stats:read' } }, { headers: rl() });
  else stats.reply(500, { error: 'x' }, { headers: rl() }).persist();
  h.api.intercept({ path: '/v1/feeds', method: 'POST', headers: auth, body: '{}' }).reply(400, { error: 'x' }, { headers: rl() });
}

/** This guild has HERE, another guild the bot is in has ELSEWHERE; UNKNOWN is in neither. */
function knowGuilds(h: BotHarness) {
  knowGuild(h.discord.client, GUILD_ID, [HERE]);
  knowGuild(h.discord.client, OTHER_GUILD_ID, [ELSEWHERE]);
}

const answer = (h: BotHarness) => (h.discord.edits().at(-1)!.body as { embeds: Embed[] }).embeds[0]!;
const ownershipField = (e: Embed) => e.fields?.find((f) => f.name === 'Server' || f.name === 'Servidor')?.value;

botTest.override({ withKey: false });

describe('/apikey set refuses a key proven to belong to another server', () => {
  botTest('feeds:read only, and its feeds forward into a channel of another guild the bot knows', async ({ bot: h }) => {
    knowGuilds(h);
    probe(h, { feeds: feedsIn(ELSEWHERE, UNKNOWN), stats: 403 });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    expect(answer(h).description).toBe(
      "This key's feeds forward into another server's channels, none into this server's: the key belongs to that server. Nothing was saved.",
    );
    expect(await h.keys.get(GUILD_ID)).toBeUndefined();
  });

  botTest('GET /stats failing, and the feeds elsewhere: refused too, in Spanish', async ({ bot: h }) => {
    knowGuilds(h);
    probe(h, { feeds: feedsIn(ELSEWHERE), stats: 500 });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }, { locale: 'es-ES' }));
    expect(answer(h).description).toMatch(/^Los feeds de esta clave reenvían a canales de otro servidor/);
    expect(await h.keys.get(GUILD_ID)).toBeUndefined();
  });

  botTest('stats naming another guild still refuses, whatever the channels say', async ({ bot: h }) => {
    knowGuilds(h);
    probe(h, { feeds: feedsIn(HERE), stats: sampleStats({ servidor: OTHER_GUILD_ID }) });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    expect(answer(h).description).toBe(`This key belongs to another server (${OTHER_GUILD_ID}), not this one. Nothing was saved.`);
    expect(await h.keys.get(GUILD_ID)).toBeUndefined();
  });
});

describe('/apikey set stores a key it could tie to this server as verified', () => {
  botTest('GET /stats names this guild', async ({ bot: h }) => {
    probe(h, { feeds: feedsIn(), stats: sampleStats() });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    expect(ownershipField(answer(h))).toBe('✅ Verified: this key belongs to this server.');
    expect(await h.keys.get(GUILD_ID)).toMatchObject({ apiKey: NEW_KEY, ownership: 'verified' });
  });

  botTest('no stats:read, but a feed forwards into a channel of this guild', async ({ bot: h }) => {
    knowGuilds(h);
    probe(h, { feeds: feedsIn(UNKNOWN, HERE), stats: 403 });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    expect(ownershipField(answer(h))).toBe('✅ Verified: this key belongs to this server.');
    expect(await h.keys.get(GUILD_ID)).toMatchObject({ ownership: 'verified' });
  });

  // The API's own word decides: every operation of a key acts on the server `servidor` names.
  botTest('GET /stats names this guild even if its feeds forward elsewhere', async ({ bot: h }) => {
    knowGuilds(h);
    probe(h, { feeds: feedsIn(ELSEWHERE), stats: sampleStats() });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    expect(await h.keys.get(GUILD_ID)).toMatchObject({ ownership: 'verified' });
  });
});

describe('/apikey set stores a key it cannot tie either way as not verified', () => {
  const UNVERIFIED =
    '⚠️ Not verified: the bot could not confirm that this key belongs to this server. Make sure the key has the `stats:read` scope (dashboard, API & webhooks), then set it again with `/apikey set`.';

  botTest('no stats:read and no feeds to check', async ({ bot: h }) => {
    knowGuilds(h);
    probe(h, { feeds: feedsIn(), stats: 403 });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    expect(answer(h).title).toBe('API key saved');
    expect(ownershipField(answer(h))).toBe(UNVERIFIED);
    expect(await h.keys.get(GUILD_ID)).toMatchObject({ apiKey: NEW_KEY, ownership: 'unverified' });
  });

  botTest('GET /stats failing and only channels the bot does not know (no proof either way)', async ({ bot: h }) => {
    knowGuilds(h);
    probe(h, { feeds: feedsIn(UNKNOWN), stats: 500 });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    expect(ownershipField(answer(h))).toBe(UNVERIFIED);
    expect(await h.keys.get(GUILD_ID)).toMatchObject({ ownership: 'unverified' });
  });

  botTest('without a guild cache (no channel known), feeds anywhere prove nothing', async ({ bot: h }) => {
    probe(h, { feeds: feedsIn(ELSEWHERE), stats: 403 });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    expect(await h.keys.get(GUILD_ID)).toMatchObject({ ownership: 'unverified' });
  });

  botTest('/apikey status shows it, in the user language, with what to do', async ({ bot: h }) => {
    probe(h, { feeds: feedsIn(), stats: 403 });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    await h.run(chatInput('apikey', 'status', {}, { locale: 'es-ES' }));
    const status = (h.discord.callbacks().at(-1)!.body as { data: { embeds: Embed[] } }).data.embeds[0]!;
    expect(ownershipField(status)).toBe(
      '⚠️ Sin verificar: el bot no pudo confirmar que esta clave pertenezca a este servidor. Asegúrate de que la clave tenga el permiso `stats:read` (panel, API y webhooks) y vuelve a ponerla con `/clave-api establecer`.',
    );
  });
});

describe('/apikey status of a key', () => {
  botTest('verified says so', async ({ bot: h }) => {
    probe(h, { feeds: feedsIn(), stats: sampleStats() });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    await h.run(chatInput('apikey', 'status'));
    const status = (h.discord.callbacks().at(-1)!.body as { data: { embeds: Embed[] } }).data.embeds[0]!;
    expect(ownershipField(status)).toBe('✅ Verified: this key belongs to this server.');
  });

  botTest('stored before ownership was recorded reads as not verified', async ({ bot: h }) => {
    await h.keys.set(GUILD_ID, { apiKey: NEW_KEY, setBy: '1400000000000000001', setAt: '2026-11-01T10:00:00.000Z', scopes: ['feeds:read'] });
    await h.run(chatInput('apikey', 'status'));
    const status = (h.discord.callbacks().at(-1)!.body as { data: { embeds: Embed[] } }).data.embeds[0]!;
    expect(ownershipField(status)).toMatch(/^⚠️ Not verified/);
  });
});

describe('judgeOwnership', () => {
  const place = (id: string): ChannelPlace => (id === HERE ? 'here' : id === ELSEWHERE ? 'elsewhere' : 'unknown');
  it.each([
    ['stats names this guild', { servidor: GUILD_ID }, 'verified'],
    ['stats names another guild', { servidor: OTHER_GUILD_ID, feedChannels: [HERE] }, 'foreign'],
    ['stats sends no guild id: the channels decide', { servidor: 'n/a', feedChannels: [ELSEWHERE] }, 'foreign'],
    ['one channel here among others elsewhere', { feedChannels: [ELSEWHERE, HERE] }, 'verified'],
    ['unknown channels and one elsewhere', { feedChannels: [UNKNOWN, ELSEWHERE] }, 'foreign'],
    ['only unknown channels', { feedChannels: [UNKNOWN] }, 'unverified'],
    ['no feeds', { feedChannels: [] }, 'unverified'],
    ['nothing readable', {}, 'unverified'],
  ] as const)('%s → %s', (_, evidence, verdict) => {
    expect(judgeOwnership(GUILD_ID, evidence, place).verdict).toBe(verdict);
  });
});
