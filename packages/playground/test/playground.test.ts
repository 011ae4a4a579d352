/**
 * The web playground in a real browser: `startDemo` (what `npm run demo` runs — sandbox, emulator,
 * the real bot process, the playground server) driven by Debian's Chromium through
 * playwright-core (see playground-page.ts). Screenshots land in test/screenshots/.
 *
 * Without /usr/bin/chromium the file is skipped locally and fails in CI (CI installs it).
 */
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE } from '../src/data-lock.js';
import { startDemo, type RunningDemo } from '../src/demo.js';
import { silentLogger } from '../src/log.js';
import { CHROMIUM, EPHEMERAL, HAVE_CHROMIUM, openDemoInChromium, type DemoInChromium, type PlaygroundPage } from './playground-page.js';

if (!HAVE_CHROMIUM && !process.env.CI) {
  console.warn(`[playground.test] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
}

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('the web playground in Chromium', () => {
  let session: DemoInChromium | undefined;
  let dir: string;
  let demo: RunningDemo;
  let page: Page;
  let pg: PlaygroundPage;
  let problems: string[] = [];
  /** Conversations by who may see them, for the visibility checks further down. */
  const publicGroups: string[] = [];
  const adminPrivateGroups: string[] = [];
  let memberPrivateGroup = '';

  beforeAll(async () => {
    session = await openDemoInChromium('feedbot-playground-');
    ({ dir, demo, page, pg, problems } = session);
  }, 120_000);

  afterAll(() => session?.close(), 60_000);

  /** How many message elements of a conversation are on screen. */
  const shown = (group: string, extra = '') => page.locator(`#log > [data-group="${group}"]${extra}`).count();

  it('opens on the demo server with the API key already set through /apikey set', async () => {
    await expect.poll(() => page.locator('.channel').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('news'), expect.stringContaining('media')]));
    await expect(page.getByTestId('note').first().textContent()).resolves.toContain('API key saved');
    await expect(page.getByTestId('bot-status').getAttribute('data-up')).resolves.toBe('true');
    // `npm run demo` without --http: the header says interactions come over the gateway.
    expect(demo!.transport).toBe('gateway');
    await expect(page.getByTestId('transport').getAttribute('data-transport')).resolves.toBe('gateway');
    await expect(page.getByTestId('transport').textContent()).resolves.toBe('Interactions: gateway');
    await pg.shot('01-start');
  });

  it('an admin creates a feed: the answer is a green embed with inline fields', async () => {
    const conversation = await pg.run('feed create', async () => {
      await page.getByTestId('option-cuenta').fill('@playwright.test');
      await page.getByTestId('option-canal').selectOption({ label: '# media' });
      await page.getByTestId('option-tipos').selectOption('post+reel');
    });
    publicGroups.push(conversation.id);
    const embed = conversation().locator('discord-embed[embed-title="Feed created"]');
    await embed.waitFor();
    expect(await embed.getAttribute('color')).toBe('#57f287');
    await expect(conversation().locator('discord-embed-field[inline]').count()).resolves.toBeGreaterThanOrEqual(3);
    await expect(conversation().locator('discord-embed-description').textContent()).resolves.toContain('@playwright.test');
    // <#id> is shown as the channel's name, as Discord does.
    await expect(conversation().locator('discord-embed-description discord-mention[type="channel"]').textContent()).resolves.toBe('media');
    await expect(conversation().locator('.command-header .slash-command').textContent()).resolves.toBe('/feed create');
    await expect(conversation().locator('.command-header').textContent()).resolves.toContain('used');
    await pg.shot('02-create');
  });

  it('the list shows the new feed, with readable times instead of <t:…> markup', async () => {
    const conversation = await pg.run('feed list');
    publicGroups.push(conversation.id);
    const field = conversation().locator('discord-embed-field[field-title*="@playwright.test"]');
    await field.waitFor();
    const text = (await conversation().locator('discord-embed').textContent()) ?? '';
    expect(text).not.toMatch(/<t:\d+/);
    expect(text).toMatch(/ago|none yet/);
    await pg.shot('03-list');
  });

  it('posts of a feed render one embed per post with its image, served through the media proxy', async () => {
    const conversation = await pg.run('feed posts', async () => {
      await pg.autocomplete('id', 'nasa', '@nasa');
      await page.getByTestId('option-limite').fill('3');
    });
    const embeds = conversation().locator('discord-embed[image]');
    await expect.poll(() => embeds.count()).toBe(3);
    for (const src of await embeds.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('image')))) expect(src).toMatch(/^\/sandbox\/media\/\w+\.png$/);
    // Every image actually decoded (not a broken-image icon).
    await expect
      .poll(() => embeds.evaluateAll((nodes) => nodes.map((n) => (n.shadowRoot?.querySelector('img.discord-embed-image') as HTMLImageElement | null)?.naturalWidth ?? 0)))
      .toEqual([320, 320, 320]);
    await expect(conversation().first().textContent()).resolves.toContain('Latest posts of feed #1 (1–3 of 3)');
    await pg.shot('04-posts');
  });

  it.each(['en', 'es'] as const)('the /feed list panel filters through its channel select in the page, editing the same message (%s)', async (lang) => {
    await pg.speak(lang);
    const conversation = await pg.run('feed list');
    publicGroups.push(conversation.id);
    const message = conversation().first();
    await message.locator('discord-embed-field[field-title*="@cocina.facil"]').waitFor();
    const messageId = await message.getAttribute('data-message-id');
    // Manage a feed…, the channel select, the state select.
    const selects = message.getByTestId('select');
    await expect.poll(() => selects.count()).toBe(3);
    const channel = selects.nth(1);
    await expect(channel.getByRole('combobox').textContent()).resolves.toContain(lang === 'en' ? 'Filter by channel…' : 'Filtrar por canal…');
    await channel.getByRole('combobox').click();
    await channel.getByRole('searchbox').fill('new');
    await expect.poll(() => channel.getByRole('option').allTextContents()).toEqual([expect.stringContaining('news')]);
    await channel.getByRole('searchbox').press('Enter');
    // The same message, edited in place: only #news's feeds, the select showing #news.
    const title = lang === 'en' ? 'Feeds in #news' : 'Feeds en #news';
    await conversation(`[data-message-id="${messageId}"]`).locator(`discord-embed[embed-title="${title}"]`).waitFor();
    await expect.poll(() => message.locator('discord-embed-field').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('field-title')))).toEqual([
      expect.stringContaining('@nasa'),
      expect.stringContaining('@spacex'),
    ]);
    await expect(channel.getByRole('combobox').textContent()).resolves.toContain('news');
    await expect(conversation().count()).resolves.toBe(1);
    await pg.shot(`04b-list-filtered-${lang}`);
    // The bot lets the filter take no channel (min_values 0): cleared with its × (en) or by picking
    // #news again (es), the same message lists every channel's feeds again.
    if (lang === 'en') {
      await channel.getByRole('button', { name: 'Clear selection' }).click();
    } else {
      await channel.getByRole('combobox').click();
      await channel.getByRole('option', { name: 'news' }).click();
    }
    await conversation(`[data-message-id="${messageId}"]`).locator('discord-embed[embed-title="Feeds"]').waitFor();
    await message.locator('discord-embed-field[field-title*="@cocina.facil"]').waitFor();
    await expect(channel.getByRole('combobox').textContent()).resolves.toContain(lang === 'en' ? 'Filter by channel…' : 'Filtrar por canal…');
    await expect(channel.getByRole('button', { name: lang === 'en' ? 'Clear selection' : 'Borrar la selección' }).isVisible()).resolves.toBe(false);
    await expect(conversation().count()).resolves.toBe(1);
    await pg.speak('en');
  });

  it.each(['en', 'es'] as const)('right-click a post → Apps → Feed of this post opens the card of the feed that forwarded it (%s)', async (lang) => {
    await pg.speak(lang);
    const posts = await pg.run('feed posts', async () => {
      await pg.autocomplete('id', 'nasa', '@nasa');
      await page.getByTestId('option-limite').fill('1');
    });
    publicGroups.push(posts.id);
    const post = posts().locator('discord-embed[image]').first();
    await post.waitFor();
    const card = page.locator(`#log > discord-message${EPHEMERAL}`).filter({ has: page.locator('discord-embed[embed-title="Feed #1 · @nasa"]') });
    const cardsBefore = await card.count();
    await post.click({ button: 'right' });
    const menu = page.getByTestId('message-menu');
    await menu.getByRole('menuitem', { name: lang === 'en' ? 'Apps' : 'Aplicaciones' }).hover();
    await menu.getByRole('menuitem', { name: lang === 'en' ? 'Feed of this post' : 'Feed de esta publicación' }).click();
    await menu.waitFor({ state: 'detached' });
    await expect.poll(() => card.count()).toBe(cardsBefore + 1);
    const answer = card.last();
    adminPrivateGroups.push((await answer.getAttribute('data-group'))!);
    await expect(answer.locator('discord-embed-field').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('field-title')))).resolves.toEqual(
      lang === 'en' ? ['Account', 'Channel', 'State', 'Content', 'Filters', 'Health', 'Latest post'] : ['Cuenta', 'Canal', 'Estado', 'Contenido', 'Filtros', 'Estado de salud', 'Última publicación'],
    );
    await expect(answer.locator('discord-button').evaluateAll((nodes) => nodes.map((n) => n.textContent?.trim()))).resolves.toEqual(lang === 'en' ? ['Posts', 'Delete'] : ['Publicaciones', 'Eliminar']);
    await pg.shot(`04c-feed-of-post-${lang}`);
    await pg.speak('en');
  });

  it('an admin deletes the feed with the private confirmation; the buttons update the message in place', async () => {
    const conversation = await pg.run('feed delete', () => pg.autocomplete('id', 'playwright', '@playwright.test'));
    adminPrivateGroups.push(conversation.id);
    const message = conversation(EPHEMERAL);
    await message.locator('discord-button[type="destructive"]').waitFor();
    await message.getByText('Only you can see this').waitFor();
    await message.getByText('Dismiss message').waitFor();
    const messageId = await message.getAttribute('data-message-id');
    await pg.shot('05-delete-confirm');
    await message.locator('discord-button[type="destructive"]').click();
    const done = conversation(`[data-message-id="${messageId}"]`).locator('discord-embed[embed-title="Feed deleted"]');
    await done.waitFor();
    await expect(conversation().locator('discord-button').count()).resolves.toBe(0);
    await pg.shot('06-delete-done');
  });

  it('/apikey set opens the bot form as a modal; a wrong key is refused and nothing changes', async () => {
    const conversation = await pg.run('apikey set');
    adminPrivateGroups.push(conversation.id);
    const modal = page.getByTestId('modal');
    const field = modal.locator('.modal-field input');
    await field.waitFor();
    await expect(modal.locator('.modal-title').textContent()).resolves.toBe('Feed API key');
    await field.fill('fbk_not-a-real-key-0000');
    await pg.shot('07-apikey-modal');
    await modal.locator('button[type="submit"]').click();
    await modal.waitFor({ state: 'detached' });
    const answer = conversation(EPHEMERAL).locator('discord-embed');
    await answer.waitFor();
    await expect(answer.textContent()).resolves.toMatch(/refused this key \(401\)/);
    // The key the demo set is still the one in use.
    await pg.run('stats').then((c) => c().locator('discord-embed[embed-title="Forwarding statistics"]').waitFor());
  });

  it('dismissing a private answer (/apikey status) takes all of it away, the command’s line too', async () => {
    const conversation = await pg.run('apikey status');
    const answer = conversation(EPHEMERAL);
    await answer.locator('discord-embed').waitFor();
    await answer.getByText('Dismiss message').click();
    await expect.poll(() => conversation().count()).toBe(0);
    await expect(page.getByText('Sending command…').count()).resolves.toBe(0);
  });

  it('a Spanish client sees Spanish commands and gets Spanish answers', async () => {
    await pg.speak('es');
    await page.getByTestId('command-search').fill('');
    await page.getByTestId('command-search').focus();
    await page.locator('[data-command="stats"]').waitFor();
    await expect(page.locator('[data-command="stats"] .popup-name').textContent()).resolves.toBe('/estadisticas');
    await expect(page.locator('[data-command="feed list"] .popup-name').textContent()).resolves.toBe('/feed lista');
    const conversation = await pg.run('stats');
    publicGroups.push(conversation.id);
    await conversation().locator('discord-embed[embed-title="Estadísticas de reenvío"]').waitFor();
    await conversation().locator('discord-embed-field[field-title="Feeds activos"]').waitFor();
    await expect(conversation().locator('.command-header').textContent()).resolves.toMatch(/ha usado\s*\/estadisticas/);
    await pg.shot('08-spanish-stats');
  });

  it('a Spanish client sees the renderer’s own labels in Spanish too: private answers, forms', async () => {
    const privateAnswer = page.locator(`#log > discord-message${EPHEMERAL}`).first();
    await privateAnswer.getByText('Solo tú puedes ver esto').waitFor();
    await privateAnswer.getByText('Descartar mensaje').waitFor();
    const conversation = await pg.run('apikey set');
    adminPrivateGroups.push(conversation.id);
    const modal = page.getByTestId('modal');
    await modal.locator('.modal-field input').waitFor();
    await expect(modal.textContent()).resolves.toContain('No compartas contraseñas');
    await expect(modal.locator('button[type="submit"]').textContent()).resolves.toContain('Enviar');
    await pg.shot('08b-spanish-modal');
    // An empty required field is refused in the client's language before anything is sent.
    await modal.locator('button[type="submit"]').click();
    await modal.getByText('Este campo es obligatorio').waitFor();
    await modal.getByRole('button', { name: 'Cancelar' }).click();
    await modal.waitFor({ state: 'detached' });
    await expect.poll(() => conversation().textContent()).toContain('Formulario cerrado sin enviar.');
    const builtIn = await pg.shadowText();
    for (const english of ['Only you can see this', 'Dismiss message', ' used ', '(edited)', 'Submit', 'Cancel', 'This form will be submitted']) {
      expect(builtIn).not.toContain(english);
    }
  });

  it('a member does not see /apikey and is refused /feed create with a private explanation', async () => {
    await pg.speak('en');
    await pg.actAs('member');
    await page.getByTestId('command-search').fill('');
    await page.getByTestId('command-search').focus();
    await page.locator('[data-command="feed create"]').waitFor();
    await expect(page.locator('[data-command^="apikey"]').count()).resolves.toBe(0);
    const conversation = await pg.run('feed create', async () => {
      await page.getByTestId('option-cuenta').fill('someone');
      await page.getByTestId('option-canal').selectOption({ label: '# news' });
      await page.getByTestId('option-tipos').selectOption('post');
    });
    memberPrivateGroup = conversation.id;
    const refusal = conversation(EPHEMERAL);
    await refusal.locator('discord-embed').waitFor();
    await expect(refusal.locator('discord-embed').textContent()).resolves.toMatch(/You need the Manage Server permission to create feeds/);
    await refusal.getByText('Only you can see this').waitFor();
    await expect(conversation().locator('.command-header').getAttribute('author')).resolves.toBe('Max (member)');
    await pg.shot('09-member-refused');
  });

  it('private answers are seen only by the user who triggered them, whoever is acting', async () => {
    // Max acts: Ana's private answers (and her unanswered form) are not his to see; public ones are.
    for (const group of adminPrivateGroups) await expect.poll(() => shown(group)).toBe(0);
    for (const group of publicGroups) expect(await shown(group)).toBeGreaterThan(0);
    expect(await shown(memberPrivateGroup, EPHEMERAL)).toBe(1);
    await pg.actAs('admin');
    for (const group of adminPrivateGroups) await expect.poll(() => shown(group)).toBeGreaterThan(0);
    await expect.poll(() => shown(memberPrivateGroup)).toBe(0);
    for (const group of publicGroups) expect(await shown(group)).toBeGreaterThan(0);
    await pg.actAs('member');
    await expect.poll(() => shown(memberPrivateGroup, EPHEMERAL)).toBe(1);
    for (const group of adminPrivateGroups) expect(await shown(group)).toBe(0);
  });

  it('a timestamp out of range shows as its raw markup and stops no other conversation', async () => {
    const [target, ...later] = publicGroups;
    const emulator = demo!.stack.emulator;
    const token = emulator.interaction(target!)!.token;
    // The bot may edit its answer into anything; markdown.js accepts up to 13 digits.
    const edit = await fetch(`${emulator.restUrl}/webhooks/${emulator.applicationId}/${token}/messages/@original`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Next check <t:99999999999999:R>, first <t:-9999999999999>, now <t:1700000000:d>' }),
    });
    expect(edit.status).toBe(200);
    const message = pg.conversation(target!)().first();
    await expect.poll(() => message.textContent()).toContain('Next check <t:99999999999999:R>, first <t:-9999999999999>, now ');
    // The valid one beside them is still a date (the embed below has its own).
    await expect(message.locator(':scope > discord-time').count()).resolves.toBe(1);
    // Redrawing everything (a language switch) still draws every conversation after it.
    const before = await pg.groupIds();
    await pg.speak('es');
    await expect.poll(() => pg.groupIds()).toEqual(before);
    for (const group of later) expect(await shown(group)).toBeGreaterThan(0);
    await pg.speak('en');
    await expect.poll(() => pg.groupIds()).toEqual(before);
  });

  it('the banner follows the server’s key: gone after /feedbot forget, saying how to set one, and back after /apikey set', async () => {
    await pg.actAs('admin');
    await pg.speak('en');
    const banner = page.getByTestId('note').first();
    await expect(banner.textContent()).resolves.toContain('Every command works right away');
    const forget = await pg.run('feedbot forget');
    await forget(EPHEMERAL).locator('discord-button', { hasText: 'Delete everything' }).click();
    await forget().locator('discord-embed[embed-title="Server data deleted"]').waitFor();
    // The page is told without a reload: the key is gone, and how to set one.
    await page.getByTestId('note').filter({ hasText: 'no API key' }).waitFor();
    await expect(banner.textContent()).resolves.not.toContain('Every command works');
    await expect(banner.textContent()).resolves.toContain('Run /apikey set as the admin and paste the sandbox key below');
    await expect(banner.getAttribute('class')).resolves.toContain('warning');
    await banner.scrollIntoViewIfNeeded();
    await pg.shot('11-key-forgotten');
    await pg.speak('es');
    await expect.poll(() => banner.textContent()).toContain('Ejecuta /clave-api establecer como admin');
    await pg.speak('en');
    // A page opened now says the same.
    const state = (await fetch(`${demo!.url}/api/state`).then((r) => r.json())) as { notes: { kind: string; text: { en: string } }[] };
    expect(state.notes).toEqual([{ kind: 'warning', text: expect.objectContaining({ en: expect.stringContaining('no API key') }) }]);
    // The admin sets the sandbox key again through the form: the banner says every command works.
    const set = await pg.run('apikey set');
    const modal = page.getByTestId('modal');
    await modal.locator('.modal-field input').fill(demo!.stack.demoKey);
    await modal.locator('button[type="submit"]').click();
    await modal.waitFor({ state: 'detached' });
    await set(EPHEMERAL).locator('discord-embed[embed-title="API key saved"]').waitFor();
    await page.getByTestId('note').filter({ hasText: 'has an API key again' }).waitFor();
    await expect(page.getByTestId('note').first().getAttribute('class')).resolves.toContain('info');
  });

  it('a second demo on the same data directory refuses at once, naming the running one', async () => {
    const started = Date.now();
    const second = startDemo({ dataDir: dir, port: 0, simulateMs: false, logger: silentLogger() });
    await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(second).rejects.toThrow(demo!.url);
    expect(Date.now() - started).toBeLessThan(2000);
    // Nothing was started or taken over: the lock still names this demo, which keeps answering.
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toEqual({ pid: process.pid, url: demo!.url });
    await expect(fetch(`${demo!.url}/api/state`).then((r) => r.status)).resolves.toBe(200);
  });

  it('serves only its own files and the sandbox media, and only to its own host', async () => {
    const get = (path: string) => fetch(`${demo!.url}${path}`).then((r) => r.status);
    await expect(get('/vendor/lit/index.js')).resolves.toBe(200);
    await expect(get('/vendor/lit/../../package.json')).resolves.toBe(404);
    await expect(get('/vendor/%2e%2e/%2e%2e/package.json')).resolves.toBe(404);
    await expect(get('/vendor/undici/index.js')).resolves.toBe(404);
    await expect(get('/static/..%2f..%2fdemo.ts')).resolves.toBe(404);
    await expect(get('/sandbox/v1/feeds')).resolves.toBe(404);
    await expect(get('/sandbox/openapi.json')).resolves.toBe(404);
    // DNS rebinding: a page served under another name must not reach the API.
    const foreignHost = await new Promise<number | undefined>((resolve, reject) => {
      // fetch may not set Host; node:http may.
      const req = httpGet(`${demo!.url}/api/state`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
    });
    expect(foreignHost).toBe(421);
    const crossSite = await fetch(`${demo!.url}/api/commands`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ commandName: 'stats', channelId: '1100000000000000101', actor: 'admin', locale: 'en-US' }),
    });
    expect(crossSite.status).toBe(403);
    const bad = await fetch(`${demo!.url}/api/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ commandName: 'stats', channelId: '1100000000000000101', actor: 'root', locale: 'en-US' }),
    });
    expect(bad.status).toBe(400);
  });

  it('when the bot process stops, the page shows it offline and commands are not delivered', async () => {
    await demo!.stack.bot!.stop();
    await page.locator('[data-testid="bot-status"][data-up="false"]').waitFor();
    await page.getByTestId('command-search').fill('stats');
    await page.locator('[data-command="stats"]').click();
    await page.getByTestId('send').click();
    await expect.poll(() => page.getByTestId('composer-error').textContent()).toMatch(/not connected/);
    await pg.shot('10-bot-offline');
  });

  it('loaded every page resource and image without an error', () => {
    expect(problems).toEqual([]);
  });
});
