/**
 * The web playground in a real browser: `startDemo` (what `npm run demo` runs — sandbox, emulator,
 * the real bot process, the playground server) driven by Debian's Chromium through
 * playwright-core. Screenshots land in test/e2e/screenshots/ (git-ignored).
 *
 * Without /usr/bin/chromium the file is skipped locally and fails in CI (CI installs it).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from '../src/demo.js';
import { silentLogger } from '../src/log.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const SHOTS = fileURLToPath(new URL('./screenshots/', import.meta.url));
const STEP_MS = 15_000;

if (!HAVE_CHROMIUM && !process.env.CI) {
  console.warn(`[playground.test] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
}

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('the web playground in Chromium', () => {
  let dir: string;
  let demo: RunningDemo | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!HAVE_CHROMIUM) throw new Error(`CI must provide Chromium at ${CHROMIUM} (.ci/run installs the Debian package)`);
    mkdirSync(SHOTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), 'feedbot-playground-'));
    // No simulator: the posts of a feed stay what the seed made, so the page is deterministic.
    [demo, browser] = await Promise.all([
      startDemo({ dataDir: dir, port: 0, simulateMs: false, logger: silentLogger() }),
      chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
        timeout: 30_000,
      }),
    ]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(STEP_MS);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
    page.on('response', (response) => {
      // API refusals are behaviour the page shows; a failed file or image is a defect.
      const api = new URL(response.url()).pathname.startsWith('/api/');
      if (response.status() >= 400 && !api) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    await page.goto(demo.url);
    await page.locator('#app[data-ready="true"][data-connected="true"]').waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await demo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const shot = async (name: string) => {
    // Let lazily rendered components and images settle so the picture shows the final state.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  };

  /** How many conversations the log shows (a conversation spans one or more message elements). */
  const conversations = () =>
    page.evaluate(() => new Set(Array.from(document.querySelectorAll('#log > [data-group]'), (n) => n.getAttribute('data-group'))).size);

  /**
   * Picks a command in the composer, lets `fill` set its options and sends it. Returns its
   * conversation: the messages drawn for it (`extra` narrows them, e.g. "[ephemeral]").
   */
  async function run(command: string, fill: () => Promise<void> = async () => undefined): Promise<(extra?: string) => Locator> {
    await page.getByTestId('command-search').fill(command);
    await page.locator(`[data-command="${command}"]`).click();
    await fill();
    const groups = page.locator('#log > [data-group]');
    const before = await conversations();
    await page.getByTestId('send').click();
    // The composer clears once the command is on its way.
    await page.getByTestId('command-pill').waitFor({ state: 'hidden' });
    await expect.poll(conversations).toBe(before + 1);
    const id = await groups.last().getAttribute('data-group');
    return (extra = '') => page.locator(`#log > discord-message[data-group="${id}"]${extra}`);
  }

  /** An autocomplete option: type, wait for the bot's suggestions, pick the one containing `pick`. */
  async function autocomplete(option: string, typed: string, pick: string): Promise<void> {
    await page.getByTestId(`option-${option}`).fill(typed);
    await page.locator('#popup .popup-item', { hasText: pick }).first().click();
  }

  it('opens on the demo server with the API key already set through /apikey set', async () => {
    await expect.poll(() => page.locator('.channel').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('news'), expect.stringContaining('media')]));
    await expect(page.getByTestId('note').first().textContent()).resolves.toContain('API key saved');
    await expect(page.getByTestId('bot-status').getAttribute('data-up')).resolves.toBe('true');
    await shot('01-start');
  });

  it('an admin creates a feed: the answer is a green embed with inline fields', async () => {
    const conversation = await run('feed create', async () => {
      await page.getByTestId('option-cuenta').fill('@playwright.test');
      await page.getByTestId('option-canal').selectOption({ label: '# media' });
      await page.getByTestId('option-tipos').selectOption('post+reel');
    });
    const embed = conversation().locator('discord-embed[embed-title="Feed created"]');
    await embed.waitFor();
    expect(await embed.getAttribute('color')).toBe('#57f287');
    await expect(conversation().locator('discord-embed-field[inline]').count()).resolves.toBeGreaterThanOrEqual(3);
    await expect(conversation().locator('discord-embed-description').textContent()).resolves.toContain('@playwright.test');
    // <#id> is shown as the channel's name, as Discord does.
    await expect(conversation().locator('discord-embed-description discord-mention[type="channel"]').textContent()).resolves.toBe('media');
    await expect(conversation().locator('discord-command').getAttribute('command')).resolves.toBe('/feed create');
    await shot('02-create');
  });

  it('the list shows the new feed, with readable times instead of <t:…> markup', async () => {
    const conversation = await run('feed list');
    const field = conversation().locator('discord-embed-field[field-title*="@playwright.test"]');
    await field.waitFor();
    const text = (await conversation().locator('discord-embed').textContent()) ?? '';
    expect(text).not.toMatch(/<t:\d+/);
    expect(text).toMatch(/ago|none yet/);
    await shot('03-list');
  });

  it('posts of a feed render one embed per post with its image, served through the media proxy', async () => {
    const conversation = await run('feed posts', async () => {
      await autocomplete('id', 'nasa', '@nasa');
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
    await shot('04-posts');
  });

  it('an admin deletes the feed with the private confirmation; the buttons update the message in place', async () => {
    const conversation = await run('feed delete', () => autocomplete('id', 'playwright', '@playwright.test'));
    const message = conversation('[ephemeral]');
    await message.locator('discord-button[type="destructive"]').waitFor();
    // The renderer's own ephemeral marking, inside its shadow DOM.
    await message.getByText('Only you can see this').waitFor();
    const messageId = await message.getAttribute('data-message-id');
    await shot('05-delete-confirm');
    await message.locator('discord-button[type="destructive"]').click();
    const done = conversation(`[data-message-id="${messageId}"]`).locator('discord-embed[embed-title="Feed deleted"]');
    await done.waitFor();
    await expect(conversation().locator('discord-button').count()).resolves.toBe(0);
    await shot('06-delete-done');
  });

  it('/apikey set opens the bot form as a modal; a wrong key is refused and nothing changes', async () => {
    const conversation = await run('apikey set');
    const modal = page.getByTestId('modal');
    const field = modal.locator('discord-input-text input');
    await field.waitFor();
    await expect(modal.getAttribute('modal-title')).resolves.toBe('Feed API key');
    await field.fill('fbk_not-a-real-key-0000');
    await shot('07-apikey-modal');
    await modal.locator('button[type="submit"]').click();
    await modal.waitFor({ state: 'detached' });
    const answer = conversation('[ephemeral]').locator('discord-embed');
    await answer.waitFor();
    await expect(answer.textContent()).resolves.toMatch(/refused this key \(401\)/);
    // The key the demo set is still the one in use.
    await run('stats').then((c) => c().locator('discord-embed[embed-title="Forwarding statistics"]').waitFor());
  });

  it('a Spanish client sees Spanish commands and gets Spanish answers', async () => {
    await page.getByTestId('lang-es').click();
    await page.getByTestId('command-search').fill('');
    await page.getByTestId('command-search').focus();
    await page.locator('[data-command="stats"]').waitFor();
    await expect(page.locator('[data-command="stats"] .popup-name').textContent()).resolves.toBe('/estadisticas');
    await expect(page.locator('[data-command="feed list"] .popup-name').textContent()).resolves.toBe('/feed lista');
    const conversation = await run('stats');
    await conversation().locator('discord-embed[embed-title="Estadísticas de reenvío"]').waitFor();
    await conversation().locator('discord-embed-field[field-title="Feeds activos"]').waitFor();
    await shot('08-spanish-stats');
  });

  it('a member does not see /apikey and is refused /feed create with a private explanation', async () => {
    await page.getByTestId('lang-en').click();
    await page.getByTestId('actor-member').click();
    await page.getByTestId('command-search').fill('');
    await page.getByTestId('command-search').focus();
    await page.locator('[data-command="feed create"]').waitFor();
    await expect(page.locator('[data-command^="apikey"]').count()).resolves.toBe(0);
    const conversation = await run('feed create', async () => {
      await page.getByTestId('option-cuenta').fill('someone');
      await page.getByTestId('option-canal').selectOption({ label: '# news' });
      await page.getByTestId('option-tipos').selectOption('post');
    });
    const refusal = conversation('[ephemeral]');
    await refusal.locator('discord-embed').waitFor();
    await expect(refusal.locator('discord-embed').textContent()).resolves.toMatch(/You need the Manage Server permission to create feeds/);
    await refusal.getByText('Only you can see this').waitFor();
    await expect(conversation().locator('discord-command').getAttribute('author')).resolves.toBe('Max (member)');
    await shot('09-member-refused');
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
    await shot('10-bot-offline');
  });

  it('loaded every page resource and image without an error', () => {
    expect(problems).toEqual([]);
  });
});
