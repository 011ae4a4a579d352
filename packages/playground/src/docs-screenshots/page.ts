/**
 * The playground page as the guide's stories drive it: pick a command as a visitor does, fill its
 * options, send it, answer the bot's form, press its buttons, and photograph one answer. It relies
 * on the page's test ids and data attributes, the same ones test/playground.test.ts uses.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { fixedAt, pageClockScript, type ClockState } from './clock.js';
import { smallerPng } from './quantize.js';

export type Lang = 'en' | 'es';
export type Actor = 'admin' | 'member';

/** How long one step (an answer, a form, a list of suggestions) may take. */
export const STEP_MS = 20_000;

/**
 * Pictures show the answer at the width it needs, not the whole chat column: messages shrink to
 * their content (Discord's own maximum embed width still applies), and nothing hovers.
 */
const PICTURE_STYLE = `
  #log > discord-message { width: fit-content; max-width: 100%; padding-right: 16px; }
  #log > discord-message:hover { background: transparent !important; }
`;

/** One command's conversation: its message elements in the log. */
export class Conversation {
  constructor(
    private readonly page: Page,
    readonly id: string,
  ) {}

  /** The message elements (answer, follow-ups); `extra` narrows them. */
  messages(extra = ''): Locator {
    return this.page.locator(`#log > discord-message[data-group="${this.id}"]${extra}`);
  }

  /** Answer `nth` of the conversation, once the bot has said something in it (not "thinking…"). */
  async answer(nth = 0): Promise<Locator> {
    const message = this.messages().nth(nth);
    await message.waitFor({ timeout: STEP_MS });
    await this.page.waitForFunction(
      ({ group, nth }) => {
        const node = document.querySelectorAll(`#log > discord-message[data-group="${group}"]`)[nth];
        const said = node?.querySelector('discord-embed, discord-attachments') ?? Array.from(node?.childNodes ?? []).find((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim());
        return Boolean(node && !node.querySelector('.thinking') && said);
      },
      { group: this.id, nth },
      { timeout: STEP_MS, polling: 100 },
    );
    return message;
  }

  /** Waits until the conversation shows `text` (an answer's title, a word of it). */
  async waitForText(text: string): Promise<void> {
    await this.messages().filter({ hasText: text }).first().waitFor({ timeout: STEP_MS });
  }

  /** The select `nth` (0 = the first) under the conversation's message `message` (default the first). */
  select(nth = 0, message = 0): Locator {
    return this.messages().nth(message).getByTestId('select').nth(nth);
  }

  /** Presses the button labelled `label` on the conversation's message. */
  async press(label: string): Promise<void> {
    await this.messages().locator('discord-button', { hasText: label }).first().click();
  }
}

export class GuidePage {
  constructor(readonly page: Page) {}

  /** Opens the playground with `Date` fixed at `at` before any of its scripts runs. */
  async open(url: string, at: number): Promise<void> {
    await this.page.addInitScript({ content: pageClockScript(at) });
    await this.page.goto(url);
    await this.page.locator('#app[data-ready="true"][data-connected="true"]').waitFor({ timeout: STEP_MS });
    await this.page.addStyleTag({ content: PICTURE_STYLE });
  }

  /** The page's clock: every relative time ("3 hours ago") and "Today at …" is read against it. */
  async setTime(at: number): Promise<void> {
    await this.page.evaluate((state) => (window as unknown as { __setDocsClock(s: ClockState): void }).__setDocsClock(state), fixedAt(at));
  }

  async speak(lang: Lang): Promise<void> {
    await this.page.getByTestId(`lang-${lang}`).click();
  }

  async actAs(actor: Actor): Promise<void> {
    await this.page.getByTestId(`actor-${actor}`).click();
  }

  /** The conversations the log shows now, by id. */
  private groupIds(): Promise<string[]> {
    return this.page.evaluate(() => [...new Set(Array.from(document.querySelectorAll('#log > [data-group]'), (n) => n.getAttribute('data-group') ?? ''))]);
  }

  /**
   * Picks `command` (its key: the English names, e.g. `feed create`) in the composer, lets `fill`
   * set its options, sends it and returns its conversation.
   */
  async run(command: string, fill: (options: OptionFields) => Promise<void> = async () => undefined): Promise<Conversation> {
    await this.page.getByTestId('command-search').fill(command);
    await this.page.locator(`[data-command="${command}"]`).click();
    await fill(new OptionFields(this.page));
    const before = await this.groupIds();
    await this.page.getByTestId('send').click();
    await this.page.getByTestId('command-pill').waitFor({ state: 'hidden', timeout: STEP_MS });
    const id = await this.poll(async () => (await this.groupIds()).find((g) => !before.includes(g)));
    return new Conversation(this.page, id);
  }

  /** The sidebar entry of channel `name`. */
  channel(name: string): Locator {
    return this.page.locator(`#channel-list .channel[data-channel="${name}"]`);
  }

  async openChannel(name: string): Promise<void> {
    await this.channel(name).click();
    await this.page.locator('#chat-title', { hasText: name }).waitFor({ timeout: STEP_MS });
  }

  /** Creates a text channel as the server's owner does (the category's +); the page then shows it. */
  async createChannel(name: string): Promise<void> {
    await this.page.getByTestId('add-channel').click();
    const dialog = this.page.locator('dialog[data-testid="create-channel"]');
    await dialog.getByTestId('channel-name').fill(name);
    await dialog.getByTestId('create-channel-confirm').click();
    await dialog.waitFor({ state: 'detached', timeout: STEP_MS });
    await this.channel(name).waitFor({ timeout: STEP_MS });
  }

  /** Deletes a channel through its context menu and the confirmation, as the owner does. */
  async deleteChannel(name: string): Promise<void> {
    await this.channel(name).click({ button: 'right' });
    await this.page.getByTestId('channel-menu-delete').click();
    const dialog = this.page.locator('dialog[data-testid="delete-channel"]');
    await dialog.getByTestId('delete-channel-confirm').click();
    await dialog.waitFor({ state: 'detached', timeout: STEP_MS });
    await this.channel(name).waitFor({ state: 'detached', timeout: STEP_MS });
  }

  /** The bot's own posts (not answers) in the channel shown, whose text contains `text`. */
  async post(text: string): Promise<Locator> {
    const post = this.page.locator('#log > discord-message[data-post]').filter({ hasText: text }).last();
    await post.locator('discord-embed').first().waitFor({ timeout: STEP_MS });
    return post;
  }

  /**
   * Opens `select` (in a message or a form), types `search` into its search box and picks the
   * first option that contains `option`, as a visitor does; a single select sends at once.
   */
  async pick(select: Locator, search: string, option: string): Promise<void> {
    await select.getByRole('combobox').click();
    await select.getByRole('searchbox').fill(search);
    await select.getByRole('option').filter({ hasText: option }).first().click({ timeout: STEP_MS });
  }

  /** Right-clicks `message` (or a part of it) and points at Apps, so the menu lists the message commands; returns the menu. */
  async openAppsMenu(message: Locator, apps: string): Promise<Locator> {
    await message.click({ button: 'right' });
    const menu = this.page.getByTestId('message-menu');
    await menu.getByRole('menuitem', { name: apps }).hover();
    return menu;
  }

  /**
   * Does `action` (a pick, a press, a menu item) and returns the private answer (only its author
   * sees it) showing `text` that it brought: one more than before, not an earlier one.
   */
  async privateAnswerTo(text: string, action: () => Promise<void>): Promise<Locator> {
    const answers = this.page.locator('#log > discord-message[data-ephemeral]').filter({ hasText: text });
    const before = await answers.count();
    await action();
    await this.poll(async () => ((await answers.count()) > before ? true : undefined));
    const answer = answers.nth(before);
    await this.page.waitForFunction((node) => node !== null && !node.querySelector('.thinking') && Boolean(node.querySelector('discord-embed')), await answer.elementHandle(), { timeout: STEP_MS, polling: 100 });
    return answer;
  }

  /** The bot's form, once it is open. */
  modal(): Locator {
    return this.page.getByTestId('modal');
  }

  /** Types `value` into the open form's only field and submits it. */
  async submitModal(value: string): Promise<void> {
    const modal = this.modal();
    await modal.locator('.modal-field input, .modal-field textarea').first().fill(value);
    await modal.locator('button[type="submit"]').click();
    await modal.waitFor({ state: 'detached', timeout: STEP_MS });
  }

  /**
   * Writes a PNG of `target` (a message, the form) to `file`, once its images are decoded and
   * it has settled, with the mouse out of the way; in 256 colours (quantize.ts). With `around`,
   * the picture is the smallest rectangle holding `target` and those too (a menu beside its message).
   */
  async picture(target: Locator, file: string, around: Locator[] = []): Promise<void> {
    if (around.length === 0) await this.page.mouse.move(0, 0);
    await target.evaluate(async (node) => {
      const images = [node, ...Array.from(node.querySelectorAll('*'))].flatMap((n) => (n.shadowRoot ? Array.from(n.shadowRoot.querySelectorAll('img')) : [])).concat(Array.from(node.querySelectorAll('img')));
      await Promise.all(images.map((img) => img.decode().catch(() => undefined)));
      await document.fonts.ready;
    });
    // Two frames at 60 Hz and some: lazily drawn parts of the renderer settle.
    await this.page.waitForTimeout(100);
    mkdirSync(dirname(file), { recursive: true });
    const shot = around.length === 0 ? await target.screenshot({ animations: 'disabled', caret: 'hide' }) : await this.page.screenshot({ animations: 'disabled', caret: 'hide', clip: await this.union([target, ...around]) });
    writeFileSync(file, smallerPng(shot));
  }

  /** The rectangle (in whole pixels) that holds every one of `parts`. */
  private async union(parts: Locator[]): Promise<{ x: number; y: number; width: number; height: number }> {
    const boxes = await Promise.all(parts.map(async (part) => (await part.boundingBox()) ?? Promise.reject(new Error('a part of the picture is not shown'))));
    const x = Math.floor(Math.min(...boxes.map((b) => b.x)));
    const y = Math.floor(Math.min(...boxes.map((b) => b.y)));
    const right = Math.ceil(Math.max(...boxes.map((b) => b.x + b.width)));
    const bottom = Math.ceil(Math.max(...boxes.map((b) => b.y + b.height)));
    return { x, y, width: right - x, height: bottom - y };
  }

  private async poll<T>(read: () => Promise<T | undefined>): Promise<T> {
    const deadline = performance.now() + STEP_MS;
    for (;;) {
      const value = await read();
      if (value !== undefined) return value;
      if (performance.now() > deadline) throw new Error('what was awaited did not appear in the log within the step time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The picked command's option inputs (by the option's API name: `cuenta`, `canal`, `id`…). */
export class OptionFields {
  constructor(private readonly page: Page) {}

  async text(option: string, value: string | number): Promise<void> {
    await this.page.getByTestId(`option-${option}`).fill(String(value));
  }

  /** A select (choices, channels, roles) by its visible label, e.g. `# media`. */
  async choose(option: string, label: string): Promise<void> {
    await this.page.getByTestId(`option-${option}`).selectOption({ label });
  }

  /** A select by its value (a choice's API value, e.g. `post+reel`). */
  async chooseValue(option: string, value: string): Promise<void> {
    await this.page.getByTestId(`option-${option}`).selectOption(value);
  }

  /** An autocomplete option: type, then pick the bot's suggestion containing `pick`. */
  async suggest(option: string, typed: string, pick: string): Promise<void> {
    await this.page.getByTestId(`option-${option}`).fill(typed);
    await this.page.locator('#popup .popup-item', { hasText: pick }).first().click({ timeout: STEP_MS });
  }

  /** A file option: the file the visitor picks from disk. */
  async file(option: string, file: { name: string; mimeType: string; buffer: Buffer }): Promise<void> {
    await this.page.getByTestId(`option-${option}`).setInputFiles(file);
  }
}
