/**
 * Driving the playground page in Chromium for the browser stories (playground.test.ts,
 * server-tools.test.ts): the demo with Debian's browser on its page, what went wrong on the page,
 * and the steps a visitor takes (pick a command, fill its options, send it, switch actor or
 * language, open, create or delete a channel).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { startDemo, type RunningDemo } from '../src/demo.js';
import { silentLogger } from '../src/log.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const SHOTS = fileURLToPath(new URL('./screenshots/', import.meta.url));

/** How the page marks a message only its author can see. */
export const EPHEMERAL = '[data-ephemeral]';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
    timeout: 30_000,
  });
}

/** Script errors, failed requests and failed files of the page, as lines for one assertion. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
  page.on('response', (response) => {
    // API refusals are behaviour the page shows; a failed file or image is a defect.
    const api = new URL(response.url()).pathname.startsWith('/api/');
    if (response.status() >= 400 && !api) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return problems;
}

/** How long one step of a story may take. */
export const STEP_MS = 15_000;

/** The demo with its page open in Chromium, ready and connected; `close()` stops both and removes the data. */
export interface DemoInChromium {
  demo: RunningDemo;
  dir: string;
  page: Page;
  pg: PlaygroundPage;
  /** What went wrong on the page so far (watchProblems). */
  problems: string[];
  close(): Promise<void>;
}

/**
 * `startDemo` as `npm run demo` runs it, without the simulator (the posts of a feed stay what the
 * seed made, so the page is deterministic), with Debian's Chromium on its page. `simulateMs`
 * forwards posts as the demo does: a round at start, then one every so often.
 */
export async function openDemoInChromium(dirPrefix: string, opts: { simulateMs?: number } = {}): Promise<DemoInChromium> {
  if (!HAVE_CHROMIUM) throw new Error(`CI must provide Chromium at ${CHROMIUM} (.ci/run installs the Debian package)`);
  mkdirSync(SHOTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  const [demo, browser] = await Promise.allSettled([startDemo({ dataDir: dir, port: 0, simulateMs: opts.simulateMs ?? false, logger: silentLogger() }), launchChromium()]);
  const close = async () => {
    if (browser.status === 'fulfilled') await browser.value.close().catch(() => undefined);
    if (demo.status === 'fulfilled') await demo.value.close();
    rmSync(dir, { recursive: true, force: true });
  };
  if (demo.status === 'rejected' || browser.status === 'rejected') {
    await close();
    throw demo.status === 'rejected' ? demo.reason : (browser as PromiseRejectedResult).reason;
  }
  const page = await browser.value.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page.setDefaultTimeout(STEP_MS);
  const problems = watchProblems(page);
  await page.goto(demo.value.url);
  await page.locator('#app[data-ready="true"][data-connected="true"]').waitFor();
  return { demo: demo.value, dir, page, pg: new PlaygroundPage(page), problems, close };
}

/** A conversation's message elements; `extra` narrows them (e.g. EPHEMERAL). */
export type Conversation = ((extra?: string) => Locator) & { id: string };

export class PlaygroundPage {
  constructor(readonly page: Page) {}

  async shot(name: string): Promise<void> {
    // Let lazily rendered components and images settle so the picture shows the final state.
    await this.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await this.page.screenshot({ path: join(SHOTS, `${name}.png`) });
  }

  /** The ids of the conversations the log shows (a conversation spans one or more elements). */
  groupIds(): Promise<string[]> {
    return this.page.evaluate(() => [...new Set(Array.from(document.querySelectorAll('#log > [data-group]'), (n) => n.getAttribute('data-group') ?? ''))]);
  }

  conversations = async (): Promise<number> => (await this.groupIds()).length;

  conversation(id: string): Conversation {
    return Object.assign((extra = '') => this.page.locator(`#log > [data-group="${id}"]${extra}`), { id });
  }

  /** Picks a command in the composer, lets `fill` set its options, sends it and returns its conversation. */
  async run(command: string, fill: () => Promise<void> = async () => undefined): Promise<Conversation> {
    await this.page.getByTestId('command-search').fill(command);
    await this.page.locator(`[data-command="${command}"]`).click();
    await fill();
    const before = await this.groupIds();
    await this.page.getByTestId('send').click();
    // The composer clears once the command is on its way.
    await this.page.getByTestId('command-pill').waitFor({ state: 'hidden' });
    await expect.poll(this.conversations).toBe(before.length + 1);
    const id = (await this.groupIds()).find((g) => !before.includes(g))!;
    const messages = (extra = '') => this.page.locator(`#log > discord-message[data-group="${id}"]${extra}`);
    return Object.assign(messages, { id });
  }

  /** An autocomplete option: type, wait for the bot's suggestions, pick the one containing `pick`. */
  async autocomplete(option: string, typed: string, pick: string): Promise<void> {
    await this.page.getByTestId(`option-${option}`).fill(typed);
    await this.page.locator('#popup .popup-item', { hasText: pick }).first().click();
  }

  /** The sidebar entry of channel `name`. */
  channel(name: string): Locator {
    return this.page.locator(`#channel-list .channel[data-channel="${name}"]`);
  }

  async openChannel(name: string): Promise<void> {
    await this.channel(name).click();
    await expect.poll(() => this.page.locator('#chat-title').textContent()).toBe(name);
  }

  /** Creates a text channel through the category's + as the owner does; the page then shows it. `shot` names a picture of the form. */
  async createChannel(typed: string, name: string, shot?: string): Promise<void> {
    await this.page.getByTestId('add-channel').click();
    const dialog = this.page.locator('dialog[data-testid="create-channel"]');
    await dialog.getByTestId('channel-name').fill(typed);
    if (shot) await this.shot(shot);
    await dialog.getByTestId('create-channel-confirm').click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => this.page.locator('#chat-title').textContent()).toBe(name);
  }

  /** Deletes a channel through its context menu and the confirmation; `shot` names pictures of both. */
  async deleteChannel(name: string, shot?: string): Promise<void> {
    await this.channel(name).click({ button: 'right' });
    if (shot) await this.shot(`${shot}-menu`);
    await this.page.getByTestId('channel-menu-delete').click();
    const dialog = this.page.locator('dialog[data-testid="delete-channel"]');
    await dialog.getByTestId('delete-channel-confirm').waitFor();
    if (shot) await this.shot(`${shot}-confirm`);
    await dialog.getByTestId('delete-channel-confirm').click();
    await dialog.waitFor({ state: 'detached' });
    await this.channel(name).waitFor({ state: 'detached' });
  }

  /** The posts in the channel shown (the bot's own, the forwarding service's): not answers to an interaction. */
  posts(): Locator {
    return this.page.locator('#log > discord-message[data-post]');
  }

  /** Whether some of `target` shows in the chat's scrolled area. */
  inView(target: Locator): Promise<boolean> {
    return target.evaluate((node) => {
      const box = node.getBoundingClientRect();
      const view = document.getElementById('scroller')!.getBoundingClientRect();
      return box.bottom > view.top && box.top < view.bottom;
    });
  }

  /** How far above the chat's end the view is, in pixels (0: at the bottom). */
  fromBottom(): Promise<number> {
    return this.page.evaluate(() => {
      const scroller = document.getElementById('scroller')!;
      return Math.round(scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight);
    });
  }

  async actAs(actor: 'admin' | 'member'): Promise<void> {
    await this.page.getByTestId(`actor-${actor}`).click();
  }

  async speak(lang: 'en' | 'es'): Promise<void> {
    await this.page.getByTestId(`lang-${lang}`).click();
  }

  /** The text the renderer's components draw inside their shadow roots (their built-in labels). */
  shadowText(): Promise<string> {
    return this.page.evaluate(() => {
      const texts: string[] = [];
      const visit = (root: Document | ShadowRoot) => {
        for (const node of Array.from(root.querySelectorAll('*'))) {
          if (!node.shadowRoot) continue;
          const walker = document.createTreeWalker(node.shadowRoot, NodeFilter.SHOW_TEXT);
          for (let text = walker.nextNode(); text; text = walker.nextNode()) if (text.parentElement?.tagName !== 'STYLE') texts.push(text.textContent ?? '');
          visit(node.shadowRoot);
        }
      };
      visit(document);
      return texts.join('\n');
    });
  }
}
