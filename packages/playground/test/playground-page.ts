/**
 * Driving the playground page in Chromium for test/playground.test.ts: launching Debian's browser,
 * collecting what went wrong on the page, and the steps a visitor takes (pick a command, fill its
 * options, send it, switch actor or language).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';

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
