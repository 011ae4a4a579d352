import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { MessageFlags } from 'discord.js';
import { ADMIN_ID, GUILD_ID, MEMBER_PERMS, OTHER_GUILD_ID, chatInput, modalSubmit } from '../helpers/discord.js';
import { botTest, rl, sampleStats, type BotHarness } from '../helpers/bot.js';

type Body = { type: number; data: Record<string, unknown> & { flags?: number; embeds: { title?: string; description?: string; fields?: { name: string; value: string }[] }[] } };
const body = (h: BotHarness, i = 0) => h.discord.callbacks()[i]!.body as Body;
const NEW_KEY = 'fbk_NewKeyFromTheDashboard_QX81';

function probeAnswers(h: BotHarness, answers: { feeds: number; stats: number; write: number; servidor?: string }) {
  const auth = { authorization: `Bearer ${NEW_KEY}` };
  h.api
    .intercept({ path: '/v1/feeds', method: 'GET', headers: auth })
    .reply(answers.feeds, answers.feeds === 200 ? { feeds: [], total: 0, plan: 'server' } : { error: 'x' }, { headers: rl() });
  h.api
    .intercept({ path: '/v1/stats', method: 'GET', headers: auth })
    .reply(answers.stats, answers.stats === 200 ? sampleStats({ servidor: answers.servidor ?? GUILD_ID }) : { error: 'x' }, { headers: rl() });
  h.api
    .intercept({ path: '/v1/feeds', method: 'POST', headers: auth, body: '{}' })
    .reply(answers.write, { error: 'x' }, { headers: rl() });
}

// Every test starts without a key; those that need one set it.
botTest.override({ withKey: false });

describe('/apikey set', () => {
  botTest('opens a modal as the first response, with a Label-wrapped text input', async ({ bot: h }) => {
    await h.run(chatInput('apikey', 'set'));
    const b = body(h);
    expect(b.type).toBe(9);
    expect(b.data).toMatchObject({
      custom_id: 'apikey:set',
      title: 'Feed API key',
      components: [{ type: 18, label: 'API key', component: { type: 4, custom_id: 'key', style: 1, required: true, min_length: 8, max_length: 512 } }],
    });
    expect(h.discord.callbacks()).toHaveLength(1);
  });

  botTest('probes the key, stores it encrypted and shows it masked with its scopes', async ({ bot: h }) => {
    probeAnswers(h, { feeds: 200, stats: 200, write: 403 });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    const [defer] = h.discord.callbacks();
    expect(defer!.body).toEqual({ type: 5, data: { flags: MessageFlags.Ephemeral } });
    const edit = h.discord.edits()[0]!.body as Body['data'];
    expect(edit.embeds[0]!.title).toBe('API key saved');
    expect(edit.embeds[0]!.description).toContain('`••••QX81`');
    expect(edit.embeds[0]!.fields![0]!.value).toBe(
      '✅ `feeds:read`\n❌ `feeds:write`\n✅ `stats:read`\n\nCommands needing a missing scope will explain it when used.',
    );
    const stored = await h.keys.get(GUILD_ID);
    expect(stored).toMatchObject({ apiKey: NEW_KEY, setBy: ADMIN_ID, scopes: ['feeds:read', 'stats:read'], ownership: 'verified' });
    // The key never reaches Discord in full, nor the logs.
    expect(JSON.stringify(h.discord.calls)).not.toContain(NEW_KEY);
    expect(h.rawLogs.join('')).not.toContain(NEW_KEY);
  });

  botTest('refuses a key the API answers 401 to, and stores nothing', async ({ bot: h }) => {
    // The first 401 settles it: no further probe is sent.
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(401, { error: 'invalid key' }, { headers: rl() });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }, { locale: 'es-ES' }));
    const edit = h.discord.edits().at(-1)?.body as Body['data'] | undefined;
    const followUp = h.discord.followUps().at(-1)?.body as Body['data'] | undefined;
    const text = (edit ?? followUp)!.embeds[0]!.description;
    expect(text).toMatch(/^La API rechazó esta clave \(401\)/);
    expect(await h.keys.get(GUILD_ID)).toBeUndefined();
  });

  botTest("refuses another server's key (stats.servidor is another guild)", async ({ bot: h }) => {
    probeAnswers(h, { feeds: 200, stats: 200, write: 400, servidor: OTHER_GUILD_ID });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    const text = (h.discord.edits().at(-1)!.body as Body['data']).embeds[0]!.description;
    expect(text).toBe(`This key belongs to another server (${OTHER_GUILD_ID}), not this one. Nothing was saved.`);
    expect(await h.keys.get(GUILD_ID)).toBeUndefined();
  });

  botTest('refuses a valid key whose account is not on the API plan, saying so', async ({ bot: h }) => {
    const plan = { error: { codigo: 'plan_required', mensaje: 'La API solo está disponible en el plan server' } };
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(403, plan, { headers: rl() });
    h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(403, plan, { headers: rl() });
    h.api.intercept({ path: '/v1/feeds', method: 'POST' }).reply(403, plan, { headers: rl() });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    const text = (h.discord.edits().at(-1)!.body as Body['data']).embeds[0]!.description;
    expect(text).toMatch(/^This key is valid, but its account is not on the `server` plan/);
    expect(await h.keys.get(GUILD_ID)).toBeUndefined();
  });

  botTest('refuses a malformed key before any request', async ({ bot: h }) => {
    await h.run(modalSubmit('apikey:set', { key: 'has spaces in it' }));
    expect(body(h).data.flags).toBe(MessageFlags.Ephemeral);
    expect(body(h).data.embeds[0]!.description).toMatch(/does not look like an API key/);
  });

  botTest('is for Manage Server only: at the command and at the modal submit', async ({ bot: h }) => {
    await h.run(chatInput('apikey', 'set', {}, { permissions: MEMBER_PERMS }));
    expect(body(h).type).toBe(4);
    expect(body(h).data.embeds[0]!.description).toBe('You need the **Manage Server** permission to manage the API key.');
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }, { permissions: MEMBER_PERMS }));
    expect(body(h, 1).data.embeds[0]!.description).toMatch(/Manage Server/);
    expect(await h.keys.get(GUILD_ID)).toBeUndefined();
  });

  botTest('works only in a server', async ({ bot: h }) => {
    await h.run(chatInput('apikey', 'status', {}, { guildId: null }));
    expect(body(h).data.embeds[0]!.description).toBe('This command only works inside a server.');
  });
});

describe('/apikey status and remove', () => {
  botTest('status shows the masked key, who set it and when, and scopes', async ({ bot: h }) => {
    await h.setKey();
    await h.run(chatInput('apikey', 'status'));
    const b = body(h);
    expect(b.data.flags).toBe(MessageFlags.Ephemeral);
    expect(b.data.embeds[0]!.fields).toEqual([
      { name: 'Key', value: '`••••3Kq2`', inline: true },
      { name: 'Set by', value: `<@${ADMIN_ID}>`, inline: true },
      { name: 'Set', value: `<t:${Date.parse('2026-11-01T10:00:00.000Z') / 1000}:f>`, inline: true },
      { name: 'Scopes', value: '✅ `feeds:read`\n✅ `feeds:write`\n✅ `stats:read`' },
      // setKey() writes a record without `ownership`, as the bot did before it checked.
      { name: 'Server', value: expect.stringMatching(/^⚠️ Not verified: /) },
    ]);
  });

  botTest('status without a key tells how to set one', async ({ bot: h }) => {
    await h.run(chatInput('apikey', 'status', {}, { locale: 'es-ES' }));
    expect(body(h).data.embeds[0]!.description).toMatch(/clave-api establecer/);
  });

  botTest('remove deletes it; feed commands then ask an admin to set one', async ({ bot: h }) => {
    await h.setKey();
    await h.run(chatInput('apikey', 'remove'));
    expect(body(h).data.embeds[0]!.description).toMatch(/was removed/);
    expect(await h.keys.get(GUILD_ID)).toBeUndefined();
    await h.run(chatInput('feed', 'list'));
    expect(body(h, 1).data.embeds[0]!.description).toBe(
      'This server has no feed API key yet. An admin (Manage Server) must run `/apikey set` first.',
    );
  });

  botTest('remove needs Manage Server', async ({ bot: h }) => {
    await h.setKey();
    await h.run(chatInput('apikey', 'remove', {}, { permissions: MEMBER_PERMS }));
    expect(body(h).data.embeds[0]!.description).toMatch(/Manage Server/);
    expect(await h.keys.get(GUILD_ID)).toBeDefined();
  });
});

describe('key storage seen from the bot', () => {
  botTest('the SQLite files never hold the plaintext key', async ({ bot: h }) => {
    probeAnswers(h, { feeds: 200, stats: 200, write: 400 });
    await h.run(modalSubmit('apikey:set', { key: NEW_KEY }));
    const files = readdirSync(h.dir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(readFileSync(`${h.dir}/${f}`).includes(Buffer.from(NEW_KEY))).toBe(false);
  });
});
