/**
 * /feed export (two private files that read back) and /feed import up to the decision: every
 * check of the dry run, and the preview's buttons (Cancel, expiry, someone else's press). The
 * import itself (progress, budget waits, deadline, refusals) is in feed-import-batch.test.ts.
 */
import { describe, expect } from 'vitest';
import { ChannelType, MessageFlags } from 'discord.js';
import { ExportDocumentSchema, readImportFile } from '../../src/transfer/format.js';
import { ADMIN_PERMS, MEMBER_ID, MEMBER_PERMS, buttonPress, chatInput } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, type BotHarness } from '../helpers/bot.js';
import { C1, C2, C3, captureUploads, exportFile, field, guildChannels, importPayload, lastShown, previewButtons, shown } from './transfer-fixtures.js';

describe('/feed export', () => {
  botTest('defers privately, then attaches the JSON export and its CSV twin, which read back', async ({ bot: h }) => {
    const uploads = captureUploads(h);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'export', {}, { userId: MEMBER_ID, permissions: MEMBER_PERMS }));

    // Files never travel in the first response (HTTP mode could not send them): defer, then edit.
    expect(h.discord.callbacks()[0]!.body).toEqual({ type: 5, data: { flags: MessageFlags.Ephemeral } });
    expect(uploads).toHaveLength(1);
    const [upload] = uploads;
    expect(upload!.payload.embeds).toEqual([
      expect.objectContaining({ title: 'Feeds exported', description: expect.stringContaining('2 feeds of this server') }),
    ]);
    const [json, csv] = upload!.files;
    expect(json!.name).toMatch(/^feeds-1100000000000000001-\d{8}-\d{4}\.json$/);
    expect(csv!.name).toBe(json!.name.replace(/\.json$/, '.csv'));

    const doc = ExportDocumentSchema.parse(JSON.parse(json!.text));
    expect(doc).toMatchObject({ format: 'feedbot-feeds', version: 1, guildId: '1100000000000000001' });
    expect(doc.feeds).toEqual([
      { id: 1, cuenta: 'nasa', canal: C1, tipos: ['post', 'reel'], filtros: 0, estado: 'activo' },
      { id: 2, cuenta: 'esa', canal: C2, tipos: ['story'], filtros: 2, estado: 'pausado' },
    ]);
    expect(csv!.text).toBe(`id,cuenta,canal,tipos,filtros,estado\r\n1,nasa,${C1},post+reel,0,activo\r\n2,esa,${C2},story,2,pausado\r\n`);
    const fromJson = readImportFile(json!.text, 'json');
    expect(readImportFile(csv!.text, 'csv')).toEqual(fromJson);
  });

  botTest('in Spanish, with no feeds', async ({ bot: h }) => {
    const uploads = captureUploads(h);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, { feeds: [], total: 0, plan: 'server' }, { headers: rl() });
    await h.run(chatInput('feed', 'export', {}, { locale: 'es-ES' }));
    const embed = (uploads[0]!.payload.embeds as { title: string; description: string }[])[0]!;
    expect(embed.title).toBe('Feeds exportados');
    expect(embed.description).toContain('Este servidor no tiene feeds');
    expect(JSON.parse(uploads[0]!.files[0]!.text)).toMatchObject({ feeds: [] });
  });
});

const listed = (...feeds: { id: number; cuenta: string; canal: string }[]) => ({
  feeds: feeds.map((f) => ({ ...f, estado: 'activo', tipos: ['post'], filtros: 0, ultimoPost: null })),
  total: feeds.length,
  plan: 'server',
});

describe('/feed import: the dry run', () => {
  botTest('checks every row and previews what would happen, privately, with Import / Cancel', async ({ bot: h }) => {
    guildChannels(h, [C1, C2]);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed({ id: 7, cuenta: 'esa', canal: C1 }), { headers: rl() });
    const file = exportFile([
      { id: 1, cuenta: 'nasa', canal: C1, tipos: ['post', 'reel'], filtros: 2, estado: 'pausado' },
      { id: 2, cuenta: 'ESA', canal: C1, tipos: ['story'] },
      { id: 3, cuenta: 'jaxa', canal: C3, tipos: ['post'] },
      { id: 4, cuenta: 'nasa', canal: C1, tipos: ['story'] },
      { id: 5, cuenta: 'no way!', canal: C2, tipos: ['post'] },
      { id: 6, cuenta: 'isro', canal: C2, tipos: ['video'] },
      { id: 7, cuenta: 'cnsa', canal: C2, tipos: ['post'] },
    ]);
    await h.run(importPayload(h, file));

    const preview = lastShown(h);
    expect(preview.flags).toBe(MessageFlags.Ephemeral);
    const embed = preview.embeds[0]!;
    expect(embed.title).toBe('Import preview: feeds.json');
    expect(embed.description).toContain('**2** to create · **1** already present (skipped) · **4** invalid (skipped)');
    expect(embed.description).toContain('Feeds with filters among them: 1.');
    expect(embed.description).toContain('Feeds not active among them: 1. New feeds always start active.');
    expect(embed.description).toMatch(/This preview expires <t:\d+:R>/);
    expect(field(preview, 'Will be created (2)')).toBe(`Row 1 · **@nasa** → <#${C1}> · Posts + Reels\nRow 7 · **@cnsa** → <#${C2}> · Posts`);
    expect(field(preview, 'Already present, skipped (1)')).toBe(`Row 2 · **@ESA** → <#${C1}> · Stories · #7`);
    expect(field(preview, 'Invalid, skipped (4)')!.split('\n')).toEqual([
      `Row 3 · \`jaxa → ${C3}\`: the channel does not exist in this server`,
      `Row 4 · \`nasa → ${C1}\`: the same feed as row 1`,
      `Row 5 · \`no way! → ${C2}\`: the account name is not valid`,
      `Row 6 · \`isro → ${C2}\`: the content types must be among post, reel, story, each once`,
    ]);
    const [confirm, cancel] = preview.components![0]!.components;
    expect([confirm!.label, confirm!.style, cancel!.label]).toEqual(['Import 2', 1, 'Cancel']);
    expect(confirm!.custom_id.length).toBeLessThanOrEqual(100);
    // Nothing was created: only the list was read.
    expect(h.agent.pendingInterceptors()).toEqual([]);
  });

  botTest('reads the CSV twin, in Spanish', async ({ bot: h }) => {
    guildChannels(h, [C1]);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(), { headers: rl() });
    await h.run(importPayload(h, { name: 'feeds.csv', body: `cuenta,canal,tipos\r\nnasa,${C1},post+story\r\n` }, { locale: 'es-419' }));
    const preview = lastShown(h);
    expect(preview.embeds[0]!.title).toBe('Vista previa de la importación: feeds.csv');
    expect(field(preview, 'Se crearán (1)')).toBe(`Fila 1 · **@nasa** → <#${C1}> · Publicaciones + Historias`);
    expect(preview.components![0]!.components.map((b) => b.label)).toEqual(['Importar 1', 'Cancelar']);
  });

  botTest('says there is nothing to import, without buttons, when every row is present or invalid', async ({ bot: h }) => {
    guildChannels(h, [C1]);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed({ id: 1, cuenta: 'nasa', canal: C1 }), { headers: rl() });
    await h.run(importPayload(h, exportFile([{ cuenta: 'nasa', canal: C1, tipos: ['post'] }, { cuenta: 'x', canal: C3, tipos: ['post'] }])));
    const preview = lastShown(h);
    expect(preview.embeds[0]!.description).toContain('Nothing to import');
    expect(preview.components).toEqual([]);
  });

  botTest.for([
    ['a file of another type', { name: 'feeds.txt', body: 'x', contentType: 'text/plain', served: false }, 'Attach a `.json` or `.csv` file'],
    ['a file over 256 KiB (declared)', { name: 'feeds.json', body: '{}', size: 300 * 1024, served: false }, 'The file is larger than 256 KiB.'],
    ['a file that is not JSON', { name: 'feeds.json', body: '{"format":' }, 'The file is not valid JSON.'],
    ['another JSON document', { name: 'feeds.json', body: '[1,2]' }, 'The file is not a feed export'],
    ['a newer format', { name: 'feeds.json', body: '{"format":"feedbot-feeds","version":2,"feeds":[]}' }, 'version 2; this bot reads version 1'],
    ['a CSV without its columns', { name: 'feeds.csv', body: 'a,b\n1,2\n' }, 'lacks the columns cuenta, canal, tipos'],
  ] as const)('refuses %s before reading the feeds', async ([, file, message], { bot: h }) => {
    await h.run(importPayload(h, file));
    const answer = lastShown(h);
    expect(answer.flags).toBe(MessageFlags.Ephemeral);
    expect(answer.embeds[0]!.description).toContain(message);
  });

  botTest('refuses a row whose channel is a category or a voice channel (only text and announcement channels, as /feed create)', async ({ bot: h }) => {
    const [voice, category] = ['1300000000000000004', '1300000000000000005'];
    guildChannels(h, [C1, { id: C2, type: ChannelType.GuildAnnouncement }, { id: voice, type: ChannelType.GuildVoice }, { id: category, type: ChannelType.GuildCategory }]);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(), { headers: rl() });
    const rows = [C1, C2, voice, category].map((canal, i) => ({ cuenta: `acct${i + 1}`, canal, tipos: ['post'] }));
    await h.run(importPayload(h, exportFile(rows)));
    const preview = lastShown(h);
    expect(preview.embeds[0]!.description).toContain('**2** to create · **0** already present (skipped) · **2** invalid (skipped)');
    expect(field(preview, 'Will be created (2)')).toBe(`Row 1 · **@acct1** → <#${C1}> · Posts\nRow 2 · **@acct2** → <#${C2}> · Posts`);
    expect(field(preview, 'Invalid, skipped (2)')!.split('\n')).toEqual([
      `Row 3 · \`acct3 → ${voice}\`: <#${voice}> is not a text or announcement channel`,
      `Row 4 · \`acct4 → ${category}\`: <#${category}> is not a text or announcement channel`,
    ]);
  });

  botTest('says so in Spanish too', async ({ bot: h }) => {
    const voice = '1300000000000000004';
    guildChannels(h, [C1, { id: voice, type: ChannelType.GuildVoice }]);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(), { headers: rl() });
    await h.run(importPayload(h, exportFile([{ cuenta: 'nasa', canal: voice, tipos: ['post'] }]), { locale: 'es-ES' }));
    expect(field(lastShown(h), 'No válidos, se omiten (1)')).toBe(`Fila 1 · \`nasa → ${voice}\`: <#${voice}> no es un canal de texto ni de anuncios`);
  });

  botTest('needs Manage Server', async ({ bot: h }) => {
    await h.run(importPayload(h, { ...exportFile([]), served: false }, { userId: MEMBER_ID, permissions: MEMBER_PERMS }));
    expect(lastShown(h).embeds[0]!.description).toBe('You need the **Manage Server** permission to create feeds.');
  });

  botTest('refuses a feed-manager role without Manage Server: roles create and delete feeds, they do not import', async ({ bot: h }) => {
    const role = '1600000000000000001';
    await h.settings.update('1100000000000000001', (s) => ({ ...s, managerRoleIds: [role] }));
    // Not the gateway's cache: that guild would have no roles, and a cached member only roles it knows.
    guildChannels(h, [C1], { rest: true });
    await h.run(importPayload(h, { ...exportFile([{ cuenta: 'nasa', canal: C1, tipos: ['post'] }]), served: false }, { userId: MEMBER_ID, permissions: MEMBER_PERMS, roles: [role] }));
    expect(lastShown(h)).toMatchObject({ flags: MessageFlags.Ephemeral, embeds: [{ description: 'You need the **Manage Server** permission to create feeds.' }] });
    // Refused before anything: the file was not downloaded, the feeds not listed, the channels not asked for.
    expect(h.agent.pendingInterceptors()).toEqual([]);
    expect(h.discord.calls.filter((c) => c.path.endsWith('/channels'))).toEqual([]);
  });
});

describe('/feed import: the preview buttons', () => {
  async function preview(h: BotHarness) {
    guildChannels(h, [C1]);
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(), { headers: rl() });
    await h.run(importPayload(h, exportFile([{ cuenta: 'nasa', canal: C1, tipos: ['post'] }])));
    return previewButtons(h);
  }

  botTest('Cancel creates nothing and says so', async ({ bot: h }) => {
    const { cancel } = await preview(h);
    await h.run(buttonPress(cancel, {}, MessageFlags.Ephemeral));
    expect(lastShown(h)).toMatchObject({ embeds: [{ description: 'Cancelled: no feed was created.' }], components: [] });
  });

  botTest('refuses someone else’s press, and the preview stays usable', async ({ bot: h }) => {
    const { confirm, cancel } = await preview(h);
    const before = shown(h).length;
    await h.run(buttonPress(confirm, { userId: MEMBER_ID, permissions: MEMBER_PERMS }, MessageFlags.Ephemeral));
    const refusal = h.discord.callbacks().at(-1)!.body as { type: number; data: { flags: number; embeds: { description: string }[] } };
    expect(refusal.type).toBe(4);
    expect(refusal.data.flags).toBe(MessageFlags.Ephemeral);
    expect(refusal.data.embeds[0]!.description).toBe('Only the person who ran this command can use these buttons.');
    expect(shown(h)).toHaveLength(before + 1);
    await h.run(buttonPress(cancel, {}, MessageFlags.Ephemeral));
    expect(lastShown(h).embeds[0]!.description).toBe('Cancelled: no feed was created.');
  });

  botTest('checks Manage Server again on Import: lost meanwhile, even with a feed-manager role, it creates nothing and the preview stays', async ({ bot: h }) => {
    const role = '1600000000000000001';
    await h.settings.update('1100000000000000001', (s) => ({ ...s, managerRoleIds: [role] }));
    guildChannels(h, [C1], { rest: true });
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, listed(), { headers: rl() });
    await h.run(importPayload(h, exportFile([{ cuenta: 'nasa', canal: C1, tipos: ['post'] }]), { userId: MEMBER_ID, permissions: ADMIN_PERMS, roles: [role] }));
    const { confirm, cancel } = previewButtons(h);
    await h.run(buttonPress(confirm, { userId: MEMBER_ID, permissions: MEMBER_PERMS, roles: [role] }, MessageFlags.Ephemeral));
    expect(lastShown(h)).toMatchObject({ flags: MessageFlags.Ephemeral, embeds: [{ description: 'You need the **Manage Server** permission to create feeds.' }] });
    // A reply of its own: nothing was listed or created, and the preview's buttons still answer.
    expect(h.discord.callbacks().at(-1)!.body).toMatchObject({ type: 4 });
    expect(h.agent.pendingInterceptors()).toEqual([]);
    await h.run(buttonPress(cancel, { userId: MEMBER_ID, permissions: MEMBER_PERMS, roles: [role] }, MessageFlags.Ephemeral));
    expect(lastShown(h).embeds[0]!.description).toBe('Cancelled: no feed was created.');
  });

  describe('with previews valid for 50 ms', () => {
    botTest.override({ harness: { confirmTtlMs: 50 } });

    botTest('expires: the buttons go away by themselves, and a late press creates nothing', async ({ bot: h }) => {
      const { confirm } = await preview(h);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The expiry timer took the buttons away (an edit of the preview).
      expect(h.discord.edits().at(-1)!.body).toMatchObject({ embeds: [{ description: expect.stringContaining('has expired') }], components: [] });
      await h.run(buttonPress(confirm, {}, MessageFlags.Ephemeral));
      expect(lastShown(h).embeds[0]!.description).toBe('This import preview has expired. Run `/feed import` again.');
    });
  });
});
