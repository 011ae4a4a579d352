/**
 * The playground beyond the conversations, in Chromium: the server's channels (created and
 * deleted by its owner from the sidebar), the bot's own posts in the audit channel, files both
 * ways (the export's attachments downloaded, an import picked from disk) and the health warning a
 * deleted channel leaves in /feed list — in English and in Spanish.
 *
 * Like playground.test.ts: skipped locally without Chromium, required in CI.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CHANNEL_IDS, DEMO_GUILD_ID } from '@feedbot/sandbox';
import type { RunningDemo } from '../src/demo.js';
import { CHROMIUM, EPHEMERAL, HAVE_CHROMIUM, openDemoInChromium, type DemoInChromium, type PlaygroundPage } from './playground-page.js';

if (!HAVE_CHROMIUM && !process.env.CI) {
  console.warn(`[server-tools.test] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
}

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('the playground’s channels, audit posts and files in Chromium', () => {
  let session: DemoInChromium | undefined;
  let demo: RunningDemo;
  let page: Page;
  let pg: PlaygroundPage;
  let problems: string[] = [];

  beforeAll(async () => {
    session = await openDemoInChromium('feedbot-playground-tools-');
    ({ demo, page, pg, problems } = session);
  }, 120_000);

  afterAll(() => session?.close(), 60_000);

  /** `/feed create` with the composer; resolves once the bot says it was created. */
  async function createFeed(cuenta: string, channel: string, title: RegExp): Promise<void> {
    const conversation = await pg.run('feed create', async () => {
      await page.getByTestId('option-cuenta').fill(cuenta);
      await page.getByTestId('option-canal').selectOption({ label: `# ${channel}` });
      await page.getByTestId('option-tipos').selectOption('post');
    });
    await expect.poll(() => conversation().locator('discord-embed').first().getAttribute('embed-title')).toMatch(title);
  }

  /** The bot's post (in the channel shown) whose text contains `text`. */
  const postWith = (text: string) => pg.posts().filter({ hasText: text });

  /** The text a link on the page downloads, fetched by the page itself. */
  const download = (href: string) => page.evaluate(async (url) => {
    const res = await fetch(url);
    return { status: res.status, disposition: res.headers.get('content-disposition'), text: await res.text() };
  }, href);

  it('the owner creates #audit-log from the sidebar and points the audit channel at it', async () => {
    await pg.createChannel('Audit Log', 'audit-log', '19-create-channel');
    await expect(pg.channel('audit-log').getAttribute('class')).resolves.toContain('active');
    const set = await pg.run('feedbot audit-channel set', () => page.getByTestId('option-canal').selectOption({ label: '# audit-log' }).then(() => undefined));
    await expect.poll(() => set(EPHEMERAL).textContent()).toContain('are posted in');
    await pg.shot('20-audit-channel-set');
  });

  it('a feed created in #news shows up in #audit-log as the bot’s post, marking the channel unread', async () => {
    await pg.openChannel('news');
    await createFeed('@audit.story', 'news', /Feed created/);
    await pg.channel('audit-log').and(page.locator('[data-unread]')).waitFor();
    await pg.openChannel('audit-log');
    const post = postWith('@audit.story');
    await post.locator('discord-embed').waitFor();
    await expect(post.locator('discord-embed').getAttribute('embed-title')).resolves.toMatch(/^Feed #\d+ created$/);
    // A post is no conversation: no "used /command" line above it, no private-answer line under it.
    await expect(post.locator('.command-header').count()).resolves.toBe(0);
    await expect(pg.channel('audit-log').getAttribute('data-unread')).resolves.toBeNull();
    await pg.shot('21-audit-post');
  });

  it('a Spanish admin who points the audit channel at #audit-log again sees the next post arrive live, in Spanish', async () => {
    await pg.speak('es');
    // The channel speaks the language of whoever chose it last.
    const set = await pg.run('feedbot audit-channel set', () => page.getByTestId('option-canal').selectOption({ label: '# audit-log' }).then(() => undefined));
    await expect.poll(() => set(EPHEMERAL).textContent()).toContain('se publican en');
    await createFeed('@auditoria.prueba', 'media', /Feed creado/);
    const post = postWith('@auditoria.prueba');
    await post.locator('discord-embed').waitFor();
    await expect(post.locator('discord-embed').getAttribute('embed-title')).resolves.toMatch(/^Feed #\d+ creado$/);
    await pg.shot('22-audit-post-es');
    await pg.speak('en');
    const back = await pg.run('feedbot audit-channel set', () => page.getByTestId('option-canal').selectOption({ label: '# audit-log' }).then(() => undefined));
    await expect.poll(() => back(EPHEMERAL).textContent()).toContain('are posted in');
  });

  it.each([
    { lang: 'en' as const, size: /^\d+(\.\d+)? (bytes|KB)$/, label: /^Download / },
    { lang: 'es' as const, size: /^\d+(,\d+)? (bytes|KB)$/, label: /^Descargar / },
  ])('the export answers with its JSON and CSV as attachment cards whose links download them ($lang)', async ({ lang, size, label }) => {
    await pg.speak(lang);
    await pg.openChannel('news');
    const conversation = await pg.run('feed export');
    const title = conversation(EPHEMERAL).locator('discord-embed').first();
    await expect.poll(() => title.getAttribute('embed-title')).toBe(lang === 'en' ? 'Feeds exported' : 'Feeds exportados');
    const cards = conversation(EPHEMERAL).getByTestId('attachment');
    await expect.poll(() => cards.count()).toBe(2);
    const names = await cards.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-filename') ?? ''));
    expect(names.map((n) => n.slice(n.lastIndexOf('.'))).sort()).toEqual(['.csv', '.json']);
    const json = cards.and(page.locator('[data-filename$=".json"]'));
    const csv = cards.and(page.locator('[data-filename$=".csv"]'));
    await expect(json.locator('.attachment-size').textContent()).resolves.toMatch(size);
    await expect(json.locator('.attachment-download').getAttribute('aria-label')).resolves.toMatch(label);
    const href = (await json.locator('a.attachment-name').getAttribute('href'))!;
    expect(href).toMatch(/^\/attachments\/\d+\//);
    const file = await download(href);
    expect(file.status).toBe(200);
    expect(file.disposition).toMatch(/^attachment;/);
    const doc = JSON.parse(file.text) as { format: string; guildId: string; feeds: { cuenta: string }[] };
    expect(doc).toMatchObject({ format: 'feedbot-feeds', guildId: DEMO_GUILD_ID });
    expect(doc.feeds.map((f) => f.cuenta)).toEqual(expect.arrayContaining([expect.stringContaining('audit.story'), expect.stringContaining('auditoria.prueba')]));
    const table = await download((await csv.locator('a.attachment-name').getAttribute('href'))!);
    expect(table.text.split(/\r?\n/)[0]).toBe('id,cuenta,canal,tipos,filtros,estado');
    if (lang === 'en') {
      // The card's own button is a real download, with the file's name.
      const [saved] = await Promise.all([page.waitForEvent('download'), json.locator('.attachment-download').click()]);
      expect(saved.suggestedFilename()).toBe(names.find((n) => n.endsWith('.json')));
      expect(JSON.parse(readFileSync((await saved.path())!, 'utf8'))).toEqual(doc);
    }
    await pg.shot(`23-export-${lang}`);
  });

  /**
   * Picks `file` for /feed import (then switches to `thenSpeak`, if given) and sends it; checks
   * the dry run (`preview` title), presses its `confirm` button and resolves with the final report.
   */
  async function importFile(file: { name: string; mimeType: string; buffer: Buffer }, expected: { preview: string; confirm: string; report: string }, thenSpeak?: 'en' | 'es') {
    const conversation = await pg.run('feed import', async () => {
      await page.getByTestId('option-archivo').setInputFiles(file);
      // The picked file stays picked when the page redraws (here: the client's language changes).
      if (thenSpeak) await pg.speak(thenSpeak);
      await expect(page.locator('[data-option="archivo"] .file-name').textContent()).resolves.toBe(file.name);
      await pg.shot(`24-import-picked-${file.name}`);
    });
    const summary = conversation(EPHEMERAL);
    await summary.locator(`discord-embed[embed-title="${expected.preview}"]`).waitFor();
    const button = summary.locator('discord-button').filter({ hasText: expected.confirm });
    await pg.shot(`24-import-dry-run-${file.name}`);
    await button.click();
    const report = conversation().locator(`discord-embed[embed-title="${expected.report}"]`);
    await report.waitFor({ timeout: 30_000 });
    return report;
  }

  it('an import picked from disk (JSON, English): dry-run summary, Import, then the final report', async () => {
    await pg.speak('en');
    const doc = {
      format: 'feedbot-feeds',
      version: 1,
      exportedAt: new Date().toISOString(),
      guildId: DEMO_GUILD_ID,
      feeds: [
        { id: 1, cuenta: '@imported.one', canal: DEMO_CHANNEL_IDS[0], tipos: ['post'], filtros: 0, estado: 'activo' },
        { id: 2, cuenta: '@imported.two', canal: DEMO_CHANNEL_IDS[1], tipos: ['post', 'reel'], filtros: 0, estado: 'activo' },
      ],
    };
    const file = { name: 'feeds.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) };
    const report = await importFile(file, { preview: 'Import preview: feeds.json', confirm: 'Import 2', report: 'Import finished' });
    await expect(report.textContent()).resolves.toContain('2 created · 0 already present · 0 refused · 0 not attempted');
    await expect(report.textContent()).resolves.toContain('imported.two');
    await pg.shot('25-import-report-en');
  });

  it('an import picked from disk (CSV, Spanish) reaches its report in Spanish', async () => {
    await pg.speak('en');
    const csv = `id,cuenta,canal,tipos,filtros,estado\n7,@importado.csv,${DEMO_CHANNEL_IDS[2]},post,0,activo\n`;
    const file = { name: 'feeds.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) };
    const report = await importFile(file, { preview: 'Vista previa de la importación: feeds.csv', confirm: 'Importar 1', report: 'Importación terminada' }, 'es');
    await expect(report.textContent()).resolves.toContain('1 creados · 0 ya existían · 0 rechazados · 0 sin intentar');
    await expect(report.textContent()).resolves.toContain('importado.csv');
    await pg.shot('26-import-report-es');
    await pg.speak('en');
  });

  it('deleting a channel from its context menu: the audit channel says so and /feed list marks its feed', async () => {
    await pg.createChannel('temporal', 'temporal');
    await createFeed('@temporal.feed', 'temporal', /Feed created/);
    await pg.deleteChannel('temporal', '27-delete-channel');
    // The page left the channel that is gone for the server's first one.
    await expect.poll(() => page.locator('#chat-title').textContent()).toBe('news');
    await pg.openChannel('audit-log');
    const notice = pg.posts().locator('discord-embed[embed-title="Channel #temporal was deleted"]');
    await notice.waitFor();
    await expect(notice.textContent()).resolves.toContain('temporal.feed');
    await pg.shot('27-channel-deleted-audit');
    await pg.openChannel('news');
    const list = await pg.run('feed list');
    const field = list().locator('discord-embed-field').filter({ hasText: '@temporal.feed' });
    await field.waitFor();
    await expect(field.textContent()).resolves.toContain('Channel deleted');
    await pg.shot('28-list-warning-en');
  });

  it('a Spanish client filtering /feed list by problems sees the same warning in Spanish', async () => {
    await pg.speak('es');
    const list = await pg.run('feed list', () => page.getByTestId('option-problemas').selectOption('true').then(() => undefined));
    const field = list().locator('discord-embed-field').filter({ hasText: '@temporal.feed' });
    await field.waitFor();
    await expect(field.textContent()).resolves.toContain('Canal eliminado');
    await expect(list().locator('discord-embed-field').filter({ hasText: '@audit.story' }).count()).resolves.toBe(0);
    await pg.shot('29-list-warning-es');
    // The owner's channel actions speak the client's language too.
    await expect(page.getByTestId('add-channel').getAttribute('title')).resolves.toBe('Crear canal');
    await pg.channel('media').click({ button: 'right' });
    await expect(page.getByTestId('channel-menu-delete').textContent()).resolves.toBe('Eliminar canal');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('channel-menu').count()).resolves.toBe(0);
    await pg.speak('en');
  });

  it('the composer offers /feedbot’s subcommand groups and picks roles from the server’s', async () => {
    await page.getByTestId('command-search').fill('feedbot');
    await page.locator('[data-command="feedbot managers add"]').click();
    const picker = page.locator('#options select').first();
    const roles = await picker.locator('option').allTextContents();
    expect(roles).toEqual(expect.arrayContaining(['@Admin', '@everyone']));
    await expect(page.getByTestId('command-pill').textContent()).resolves.toBe('/feedbot managers add');
    await page.getByTestId('command-pill').click();
  });

  it('a member sees no channel actions, and the server refuses them from anyone but the owner', async () => {
    await pg.actAs('member');
    await expect(page.getByTestId('add-channel').count()).resolves.toBe(0);
    await pg.channel('news').click({ button: 'right' });
    await expect(page.getByTestId('channel-menu').count()).resolves.toBe(0);
    const refused = await fetch(`${demo.url}/api/channels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'sneaky', actor: 'member', locale: 'en-US' }),
    });
    expect(refused.status).toBe(403);
    await pg.actAs('admin');
  });

  it('loaded every page resource and file without an error', () => {
    expect(problems).toEqual([]);
  });
});
