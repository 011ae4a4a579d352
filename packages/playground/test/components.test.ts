/**
 * What a Discord client shows of a bot's components, in the playground, in Chromium: a channel
 * select in a message picked through its search (the message updated in place by the bot's
 * type 7 answer), a role multi-select in a private answer, a modal whose Labels hold a text
 * input, a channel select, a checkbox group, a radio group and a checkbox (and complain until
 * filled), a slash command's options in the composer (whole descriptions, "required" until
 * filled), and a message's right-click menu with "Apps" running a message command — in English
 * and in Spanish.
 *
 * The bot is a test double (a discord.js client logged into the emulator, answering in this
 * file), not feedbot: these stories are about the page, whatever commands feedbot grows.
 * Like playground.test.ts: skipped locally without Chromium, required in CI.
 */
import { once } from 'node:events';
import type { APIMessage } from 'discord-api-types/v10';
import { Client, Events, GatewayIntentBits, MessageFlags, type Interaction } from 'discord.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type DiscordEmulator } from '@feedbot/discord-emulator';
import { DEMO_CHANNEL_IDS, DEMO_GUILD_ID } from '@feedbot/sandbox';
import type { RunningPlayground } from '../src/playground.js';
import { ADMIN_PERMISSIONS, ADMIN_ROLE_ID, ADMIN_USER_ID, APPLICATION_ID, MEMBER_PERMISSIONS, MEMBER_USER_ID, MODERATOR_ROLE_ID, demoGuild } from '../src/stack.js';
import { startBarePlayground } from './playground-fixture.js';
import { CHROMIUM, EPHEMERAL, HAVE_CHROMIUM, STEP_MS, launchChromium, watchProblems } from './playground-page.js';

if (!HAVE_CHROMIUM && !process.env.CI) {
  console.warn(`[components.test] skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
}

const TOKEN = 'components-story-token';
const [NEWS, MEDIA, FOOD] = DEMO_CHANNEL_IDS;
/** The demo server's announcement channel (type 5): its selects show Discord's 📢 before its name. */
const ANNOUNCEMENTS = '1100000000000000104';
/** A voice channel: a channel select offering text and announcement channels leaves it out. */
const VOICE = '1100000000000000109';
const row = (...components: unknown[]) => ({ type: 1, components });

/** The modal the double shows: every kind of Label child the page draws. */
const FORM = {
  custom_id: 'form',
  title: 'New feed',
  components: [
    { type: 18, label: 'Account', description: 'The account to follow', component: { type: 4, custom_id: 'account', style: 1, min_length: 2 } },
    { type: 18, label: 'Channel', component: { type: 8, custom_id: 'channel', channel_types: [0, 5] } },
    {
      type: 18,
      label: 'Kinds',
      component: {
        type: 22,
        custom_id: 'kinds',
        min_values: 1,
        max_values: 2,
        options: [
          { label: 'Posts', value: 'posts', default: true },
          { label: 'Replies', value: 'replies' },
          { label: 'Reposts', value: 'reposts' },
        ],
      },
    },
    { type: 18, label: 'Mode', component: { type: 21, custom_id: 'mode', options: [{ label: 'Each post', value: 'each', default: true }, { label: 'Digest', value: 'digest' }] } },
    { type: 18, label: 'Notify', component: { type: 23, custom_id: 'notify' } },
  ],
};

/**
 * A slash command of the double with options as feedbot's are described: descriptions that fit a
 * field, and one (within Discord's 100 characters) too long for any.
 */
const WATCH = {
  type: 1,
  name: 'watch',
  description: 'Forward an account into a channel',
  options: [
    {
      type: 3,
      name: 'account',
      description: 'Account name, @name or profile URL',
      description_localizations: { 'es-ES': 'Nombre de la cuenta, @nombre o URL del perfil' },
      required: true,
    },
    { type: 7, name: 'channel', description: 'Channel the posts are forwarded to', channel_types: [0, 5], required: true },
    {
      type: 3,
      name: 'filter',
      description: 'Only feeds whose account name contains this',
      description_localizations: { 'es-ES': 'Solo los feeds cuyo nombre de cuenta contiene esto' },
    },
    {
      type: 3,
      name: 'note',
      description: 'A line posted with each forwarded post, before its caption, as the server writes it (Markdown)',
      description_localizations: { 'es-ES': 'Una línea que acompaña a cada publicación reenviada, antes de su texto (admite Markdown)' },
    },
  ],
};

describe.skipIf(!HAVE_CHROMIUM && !process.env.CI)('selects, modal Labels and the message menu in Chromium', () => {
  let emulator: DiscordEmulator;
  let bot: Client;
  let playground: RunningPlayground;
  let browser: Browser;
  let page: Page;
  let problems: string[] = [];
  /** What the double received, for the stories to check what the page sent. */
  const received: Record<string, unknown>[] = [];

  async function answer(i: Interaction): Promise<void> {
    if (i.isChannelSelectMenu()) {
      received.push({ select: i.customId, values: i.values });
      const v = i.values[0]!;
      await i.update({ content: `${i.message.content.split('\n')[0]}\nChannel <#${v}>`, components: [row({ type: 8, custom_id: 'channel', channel_types: [0, 5], default_values: [{ id: v, type: 'channel' }] })] as never });
    } else if (i.isRoleSelectMenu()) {
      received.push({ select: i.customId, values: i.values });
      await i.update({ content: `Roles: ${i.roles.map((r) => r!.name).sort().join(', ')}`, components: [] });
    } else if (i.isButton() && i.customId === 'settings') {
      await i.reply({ content: 'Pick the roles', flags: MessageFlags.Ephemeral, components: [row({ type: 6, custom_id: 'roles', min_values: 0, max_values: 2, placeholder: 'Feed managers' })] as never });
    } else if (i.isButton() && i.customId === 'form') {
      await i.showModal(FORM as never);
    } else if (i.isModalSubmit()) {
      const f = i.fields;
      const got = {
        account: f.getTextInputValue('account'),
        channel: [...f.getSelectedChannels('channel', true)!.keys()],
        kinds: f.getCheckboxGroup('kinds'),
        mode: f.getRadioGroup('mode'),
        notify: f.getCheckbox('notify'),
      };
      received.push({ modal: got });
      await i.reply({ content: `Got ${got.account}: ${got.kinds.join('+')}`, flags: MessageFlags.Ephemeral });
    } else if (i.isChatInputCommand()) {
      const options = Object.fromEntries(i.options.data.map((o) => [o.name, o.value]));
      received.push({ command: i.commandName, options });
      await i.reply({ content: `Watching ${String(options.account)}`, flags: MessageFlags.Ephemeral });
    } else if (i.isMessageContextMenuCommand()) {
      received.push({ command: i.commandName, target: i.targetId });
      await i.reply({ content: `Inspected ${i.targetMessage.content}`, flags: MessageFlags.Ephemeral });
    }
  }

  /** The double posts a message in #news over REST, as a bot's REST client does. */
  async function post(body: unknown): Promise<APIMessage> {
    const res = await fetch(`${emulator.restUrl}/channels/${NEWS}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bot ${TOKEN}` },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as APIMessage;
  }

  beforeAll(async () => {
    const guild = demoGuild();
    guild.channels.push({ id: VOICE, name: 'voice-chat', type: 2, parentId: '1100000000000000100', position: 9 });
    emulator = await startEmulator({ applicationId: APPLICATION_ID, botToken: TOKEN, guilds: [guild] });
    emulator.setCommands([{ type: 3, name: 'Inspect', name_localizations: { 'es-ES': 'Inspeccionar' } }, WATCH], DEMO_GUILD_ID);
    bot = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emulator.apiUrl } });
    bot.on(Events.InteractionCreate, (i) => void answer(i).catch((error: unknown) => received.push({ error: String(error) })));
    const ready = once(bot, Events.ClientReady, { signal: AbortSignal.timeout(20_000) });
    await bot.login(TOKEN);
    await ready;
    const actor = (userId: string, username: string, permissions: string, avatar: string) => ({ userId, username, displayName: username, permissions, avatar });
    playground = await startBarePlayground(
      emulator,
      DEMO_GUILD_ID,
      { admin: actor(ADMIN_USER_ID, 'Ana (admin)', ADMIN_PERMISSIONS, '/static/avatars/ana.svg'), member: actor(MEMBER_USER_ID, 'Max (member)', MEMBER_PERMISSIONS, '/static/avatars/max.svg') },
      { botRunning: true },
    );
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await playground?.close();
    await bot?.destroy();
    await emulator?.close();
  }, 30_000);

  async function open(lang: 'en' | 'es'): Promise<void> {
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(STEP_MS);
    problems = watchProblems(page);
    await page.goto(`${playground.url}/?lang=${lang}`);
    await page.locator('#app[data-ready="true"][data-connected="true"]').waitFor();
  }

  afterEach(async () => {
    expect(problems).toEqual([]);
    expect(emulator.violations).toEqual([]);
    await page?.close();
  });

  /** The double's post in the channel shown whose text contains `text`. */
  const postWith = (text: string) => page.locator('#log > discord-message[data-post]').filter({ hasText: text });
  /** What the double received since `from`. */
  const since = (from: number) => () => received.slice(from);

  it.each(['en', 'es'] as const)('a channel select in a message is picked through its search; the bot’s update redraws it in place (%s)', async (lang) => {
    await open(lang);
    const from = received.length;
    const mark = `channel-panel-${lang}`;
    await post({ content: mark, components: [row({ type: 8, custom_id: 'channel', channel_types: [0, 5], default_values: [{ id: NEWS, type: 'channel' }] })] });
    const panel = postWith(mark);
    const select = panel.getByTestId('select');
    // The default value shows before anything is picked.
    await expect.poll(() => select.getByRole('combobox').textContent()).toContain('news');
    await select.getByRole('combobox').click();
    const search = select.getByRole('searchbox');
    await expect(search.getAttribute('placeholder')).resolves.toBe(lang === 'en' ? 'Search' : 'Buscar');
    const options = select.getByRole('option');
    // Text and announcement channels only: no voice channel, no category.
    await expect.poll(() => options.allTextContents()).toEqual(['news', 'media', 'food', 'announcements'].map((n) => expect.stringContaining(n)));
    await search.fill('med');
    await expect.poll(() => options.allTextContents()).toEqual([expect.stringContaining('media')]);
    await search.press('Enter');
    await expect.poll(since(from)).toEqual([{ select: 'channel', values: [MEDIA] }]);
    // The same post, edited: its text names the channel and the select shows it picked.
    await expect.poll(() => panel.locator('discord-mention[type="channel"]').textContent()).toBe('media');
    await expect.poll(() => select.getByRole('combobox').textContent()).toContain('media');
    await expect(postWith(mark).count()).resolves.toBe(1);
  });

  it.each(['en', 'es'] as const)('a role multi-select in a private answer takes two roles, never @everyone (%s)', async (lang) => {
    await open(lang);
    const from = received.length;
    const mark = `settings-${lang}`;
    await post({ content: mark, components: [row({ type: 2, style: 2, custom_id: 'settings', label: 'Settings' })] });
    await postWith(mark).locator('discord-button', { hasText: 'Settings' }).click();
    const answerNode = page.locator(`#log > discord-message${EPHEMERAL}`).filter({ hasText: 'Pick the roles' });
    const select = answerNode.getByTestId('select');
    await expect.poll(() => select.getByRole('combobox').textContent()).toContain('Feed managers');
    await select.getByRole('combobox').click();
    await expect(select.getByRole('listbox').getAttribute('aria-multiselectable')).resolves.toBe('true');
    const options = select.getByRole('option');
    await expect.poll(() => options.allTextContents()).toEqual([expect.stringContaining('Admin'), expect.stringContaining('Moderators')]);
    await select.getByRole('searchbox').fill('mod');
    await options.filter({ hasText: 'Moderators' }).click();
    await select.getByRole('searchbox').fill('');
    await options.filter({ hasText: 'Admin' }).click();
    await expect(options.filter({ hasText: 'Admin' }).getAttribute('aria-selected')).resolves.toBe('true');
    // A multi-select sends what is picked when it closes, as Discord's client does.
    await select.getByRole('searchbox').press('Escape');
    await expect.poll(since(from)).toEqual([{ select: 'roles', values: expect.arrayContaining([ADMIN_ROLE_ID, MODERATOR_ROLE_ID]) }]);
    await expect.poll(() => page.locator(`#log > discord-message${EPHEMERAL}`).filter({ hasText: 'Roles: Admin, Moderators' }).count()).toBe(1);
    await expect(answerNode.count()).resolves.toBe(0);
  });

  it.each(['en', 'es'] as const)('a modal with a Label, a channel select and a checkbox group is submitted with every value (%s)', async (lang) => {
    await open(lang);
    const from = received.length;
    const mark = `form-${lang}`;
    await post({ content: mark, components: [row({ type: 2, style: 1, custom_id: 'form', label: 'New feed' })] });
    await postWith(mark).locator('discord-button', { hasText: 'New feed' }).click();
    const modal = page.getByTestId('modal');
    await modal.waitFor();
    await modal.getByText('The account to follow').waitFor();
    await modal.getByLabel('Account').fill('nasa');
    const channel = modal.getByTestId('select');
    // Escape in the list closes the list, not the form.
    await channel.getByRole('combobox').click();
    await channel.getByRole('searchbox').press('Escape');
    await expect.poll(() => channel.getByRole('combobox').getAttribute('aria-expanded')).toBe('false');
    await expect(modal.isVisible()).resolves.toBe(true);
    await channel.getByRole('combobox').click();
    await channel.getByRole('searchbox').fill('foo');
    await expect.poll(() => channel.getByRole('option').allTextContents()).toEqual([expect.stringContaining('food')]);
    await channel.getByRole('searchbox').press('Enter');
    await expect.poll(() => channel.getByRole('combobox').textContent()).toContain('food');
    const kinds = modal.getByRole('group', { name: 'Kinds' });
    await expect(kinds.getByRole('checkbox', { name: 'Posts', exact: true }).isChecked()).resolves.toBe(true);
    await kinds.getByRole('checkbox', { name: 'Reposts', exact: true }).check();
    // Two picked of at most two: the third cannot be ticked.
    await expect(kinds.getByRole('checkbox', { name: 'Replies', exact: true }).isDisabled()).resolves.toBe(true);
    await modal.getByRole('radio', { name: 'Digest' }).check();
    await modal.getByRole('checkbox', { name: 'Notify', exact: true }).check();
    await modal.getByRole('button', { name: lang === 'en' ? 'Submit' : 'Enviar' }).click();
    await modal.waitFor({ state: 'detached' });
    await expect.poll(since(from)).toEqual([{ modal: { account: 'nasa', channel: [FOOD], kinds: ['posts', 'reposts'], mode: 'digest', notify: true } }]);
    await expect.poll(() => page.locator(`#log > discord-message${EPHEMERAL}`).filter({ hasText: 'Got nasa: posts+reposts' }).count()).toBe(1);
  });

  it.each(['en', 'es'] as const)('a form’s complaints go as its fields are filled; an announcement channel reads “📢 announcements” (%s)', async (lang) => {
    await open(lang);
    const from = received.length;
    const mark = `form-checks-${lang}`;
    await post({ content: mark, components: [row({ type: 2, style: 1, custom_id: 'form', label: 'New feed' })] });
    await postWith(mark).locator('discord-button', { hasText: 'New feed' }).click();
    const modal = page.getByTestId('modal');
    await modal.waitFor();
    const [account, channel] = [modal.locator('.modal-field').nth(0), modal.locator('.modal-field').nth(1)];
    const complaint = (field: typeof account) => field.locator('.modal-error').textContent();
    const required = lang === 'en' ? 'This field is required' : 'Este campo es obligatorio';
    // Sent empty: both Labels complain, and nothing is sent.
    await modal.getByRole('button', { name: lang === 'en' ? 'Submit' : 'Enviar' }).click();
    await expect.poll(() => complaint(account)).toBe(required);
    await expect.poll(() => complaint(channel)).toBe(required);
    // The account's complaint follows what is typed, and goes once it is long enough.
    await modal.getByLabel('Account').fill('n');
    await expect.poll(() => complaint(account)).toBe(lang === 'en' ? 'Must be 2 characters or more in length.' : 'Debe tener al menos 2 caracteres.');
    await modal.getByLabel('Account').fill('nasa');
    await expect.poll(() => complaint(account)).toBe('');
    await expect(account.getAttribute('class')).resolves.not.toContain('invalid');
    await expect(complaint(channel)).resolves.toBe(required);
    // Picking a channel takes the channel's complaint away; the pick shows its icon apart from its name.
    const select = channel.getByTestId('select');
    await select.getByRole('combobox').click();
    await select.getByRole('searchbox').fill('ann');
    await select.getByRole('searchbox').press('Enter');
    await expect.poll(() => complaint(channel)).toBe('');
    await expect(select.getByRole('combobox').locator('.select-value').textContent()).resolves.toBe('📢 announcements');
    await modal.getByRole('button', { name: lang === 'en' ? 'Submit' : 'Enviar' }).click();
    await modal.waitFor({ state: 'detached' });
    await expect.poll(since(from)).toEqual([{ modal: expect.objectContaining({ account: 'nasa', channel: [ANNOUNCEMENTS] }) }]);
  });

  it.each(['en', 'es'] as const)('the composer shows each option’s whole description and drops “required” once the option is filled (%s)', async (lang) => {
    await open(lang);
    const from = received.length;
    await page.getByTestId('command-search').fill('watch');
    await page.locator('[data-command="watch"]').click();
    const locale = lang === 'en' ? 'en-US' : 'es-ES';
    // Each text option's description is seen whole: as its field's placeholder, never cut, or,
    // too long for a field, on the hint line while the field has focus.
    for (const option of WATCH.options.filter((o) => o.type === 3)) {
      const description = (option.description_localizations as Record<string, string> | undefined)?.[locale] ?? option.description;
      const field = page.getByTestId(`option-${option.name}`);
      const placeholder = await field.getAttribute('placeholder');
      if (placeholder) {
        expect(placeholder).toBe(description);
        // The placeholder's text typed in the field fits it without scrolling: none of it is cut.
        const fits = await field.evaluate((input: HTMLInputElement) => {
          input.value = input.placeholder;
          const whole = input.scrollWidth <= input.clientWidth;
          input.value = '';
          return whole;
        });
        expect(fits, `${option.name}: “${placeholder}” is cut`).toBe(true);
      } else {
        await field.focus();
        await expect.poll(() => page.locator('#composer-hint').textContent()).toContain(description);
      }
    }
    const error = page.getByTestId('composer-error');
    const required = lang === 'en' ? 'This field is required' : 'Este campo es obligatorio';
    await page.getByTestId('send').click();
    await expect.poll(() => error.textContent()).toBe(`account: ${required}`);
    await page.getByTestId('option-account').fill('nasa');
    await expect.poll(() => error.isVisible()).toBe(false);
    await page.getByTestId('send').click();
    await expect.poll(() => error.textContent()).toBe(`channel: ${required}`);
    // The composer's channel list shows each channel's icon apart from its name, as selects do.
    await expect(page.getByTestId('option-channel').locator('option').allTextContents()).resolves.toEqual(
      expect.arrayContaining(['# news', '📢 announcements']),
    );
    await page.getByTestId('option-channel').selectOption({ label: '📢 announcements' });
    await expect.poll(() => error.isVisible()).toBe(false);
    await page.getByTestId('send').click();
    await expect.poll(since(from)).toEqual([{ command: 'watch', options: { account: 'nasa', channel: ANNOUNCEMENTS } }]);
    await expect.poll(() => page.locator(`#log > discord-message${EPHEMERAL}`).filter({ hasText: 'Watching nasa' }).count()).toBe(1);
  });

  it('a post made while the page loads the channel’s posts stays in view once that load lands', async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(STEP_MS);
    problems = watchProblems(page);
    // The load's answer is read from the server at once (a snapshot without the post), then held
    // until the post has been drawn live: the order a slow load on a busy machine gives.
    let snapshotTaken!: () => void;
    const taken = new Promise<void>((resolve) => (snapshotTaken = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/posts', async (route) => {
      const response = await route.fetch();
      snapshotTaken();
      await released;
      await route.fulfill({ response });
    });
    await page.goto(`${playground.url}/?lang=en`);
    await page.locator('#app[data-ready="true"][data-connected="true"]').waitFor();
    await taken;
    const mark = 'posted-during-load';
    await post({ content: mark });
    await postWith(mark).waitFor();
    release();
    await page.locator('#app[data-post-loads="1"]').waitFor();
    await expect(postWith(mark).count()).resolves.toBe(1);
  });

  it.each(['en', 'es'] as const)('right-click on a message → Apps → the message command runs on that message (%s)', async (lang) => {
    await open(lang);
    const from = received.length;
    const mark = `target-${lang}`;
    const target = await post({ content: mark });
    const message = postWith(mark);
    await message.waitFor();
    const command = lang === 'en' ? 'Inspect' : 'Inspeccionar';
    const apps = lang === 'en' ? 'Apps' : 'Aplicaciones';
    if (lang === 'en') {
      await message.click({ button: 'right' });
      const menu = page.getByTestId('message-menu');
      await menu.getByRole('menuitem', { name: apps }).hover();
      await menu.getByRole('menuitem', { name: command }).click();
    } else {
      // Without a mouse: the message's "⋯" button, then the keyboard.
      await message.hover();
      await message.getByRole('button', { name: 'Más opciones' }).focus();
      await page.keyboard.press('Enter');
      const menu = page.getByTestId('message-menu');
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent ?? '')).toContain(apps);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent ?? '')).toContain(command);
      await page.keyboard.press('Enter');
      await menu.waitFor({ state: 'detached' });
    }
    await expect.poll(since(from)).toEqual([{ command: 'Inspect', target: target.id }]);
    await expect.poll(() => page.locator(`#log > discord-message${EPHEMERAL}`).filter({ hasText: `Inspected ${mark}` }).count()).toBe(1);
  });
});
