/**
 * The guide's pages on feeds: the list as a panel (its channel filter, a feed's card), adding a
 * feed through the form, deleting it through the picker and by id, its latest posts and the
 * message command that finds the feed of a post, and the server's statistics. Each language adds
 * and deletes its own feeds, so both runs start from the same list.
 */
import type { Story } from '../story.js';
import { createFeed } from './steps.js';

/** The accounts each language's story adds (and deletes again). */
const NEW_ACCOUNT = { en: 'natgeotravel', es: 'natgeoviajes' } as const;
const PICKED_ACCOUNT = { en: 'natgeoscience', es: 'natgeociencia' } as const;

export const feedStories: Story[] = [
  {
    name: 'list the feeds, filter them by channel, open a card',
    async run({ page, picture, text }) {
      const list = await page.run('feed list');
      const answer = await list.answer();
      await list.select(0).waitFor();
      await picture(answer, 'feed-list-answer', { says: ['list.title'], shows: ['@nasa', '@natgeo', '@spacex', '@cocina.facil'] });

      // The channel select edits the same message: only #news's feeds are left.
      await page.pick(list.select(1), 'news', 'news');
      await answer.filter({ hasNotText: '@cocina.facil' }).waitFor();
      await picture(answer, 'feed-list-filtered', { says: ['list.title'], shows: ['@nasa', '@spacex'] });

      const card = await page.privateAnswerTo('@nasa', () => page.pick(list.select(0), 'nasa', '@nasa'));
      await card.locator('discord-button', { hasText: text('card.button.delete') }).waitFor();
      await picture(card, 'feed-card', { says: ['card.field.latest', 'card.field.health', 'card.button.posts', 'card.button.delete'], shows: ['@nasa'] });
    },
  },
  {
    name: 'add a feed through the form, then delete it',
    async run({ page, picture, lang, text }) {
      const account = NEW_ACCOUNT[lang];
      const created = await page.run('feed create');
      const form = page.modal();
      await form.waitFor();
      await form.getByLabel(text('forms.create.account.label')).fill(`@${account}`);
      await page.pick(form.getByTestId('select'), 'media', 'media');
      // Every kind starts ticked: keep posts and reels.
      await form.getByRole('group', { name: text('forms.create.kinds.label') }).getByRole('checkbox').nth(2).uncheck();
      await picture(form, 'feed-create-form', { says: ['forms.create.title', 'forms.create.account.description', 'forms.create.kinds.description'] });
      await form.locator('button[type="submit"]').click();
      await form.waitFor({ state: 'detached' });
      await picture(await created.answer(), 'feed-create-answer', { says: ['create.title', 'create.description'], shows: [`@${account}`] });

      const deleting = await page.run('feed delete', (options) => options.suggest('id', account, `@${account}`));
      const confirm = await deleting.answer();
      await confirm.locator('discord-button[type="destructive"]').waitFor();
      await picture(confirm, 'feed-delete-confirm', { says: ['delete.confirm.description'], shows: [`@${account}`] });
      await confirm.locator('discord-button[type="destructive"]').click();
      // The confirmation turns into the result in place, without its buttons.
      await confirm.locator('discord-button').first().waitFor({ state: 'detached' });
      await picture(confirm, 'feed-delete-done', { says: ['delete.done.title', 'delete.done'] });
    },
  },
  {
    name: 'delete feeds picked from a list',
    async run({ page, picture, lang, text }) {
      const account = PICKED_ACCOUNT[lang];
      await createFeed(page, account, 'media');
      const deleting = await page.run('feed delete');
      const picker = await deleting.answer();
      await deleting.select(0).waitFor();
      await picture(picker, 'feed-delete-picker', { says: ['forms.delete.title', 'forms.delete.description'], shows: ['@nasa'] });
      await page.pick(deleting.select(0), account, `@${account}`);
      // A multi-select sends what is ticked when its list closes.
      await deleting.select(0).getByRole('searchbox').press('Escape');
      // The picker turns into the confirmation in place.
      const confirm = picker;
      await confirm.locator('discord-button[type="destructive"]').waitFor();
      await picture(confirm, 'feed-delete-picker-confirm', { says: ['bulkDelete.confirm.title', 'forms.delete.confirm.chosen'], shows: [`@${account}`] });
      await confirm.locator('discord-button[type="destructive"]').click();
      await deleting.messages().filter({ hasText: text('bulkDelete.report.title') }).last().waitFor();
    },
  },
  {
    name: 'the latest posts of a feed, and the feed of a post',
    async run({ page, picture, text, lang }) {
      const posts = await page.run('feed posts', async (options) => {
        await options.suggest('id', 'nasa', '@nasa');
        await options.text('limite', 2);
      });
      const answer = await posts.answer();
      await posts.messages().locator('discord-embed[image]').nth(1).waitFor();
      await picture(answer, 'feed-posts-answer', { says: ['posts.header', 'posts.field.published', 'card.button.open'] });

      // The answer holds the posts' links, as a forwarded post does: right-click → Apps.
      const firstPost = answer.locator('discord-embed').first();
      const menu = await page.openAppsMenu(firstPost, lang === 'en' ? 'Apps' : 'Aplicaciones');
      const command = menu.getByRole('menuitem', { name: text('cmd.feedOfPost.name') });
      await command.waitFor();
      // The answer's top (its author line and first post) with the menu open beside it.
      await picture(firstPost, 'feed-of-post-menu', { says: ['cmd.feedOfPost.name'], around: [menu, menu.getByRole('menu')] });
      const card = await page.privateAnswerTo('@nasa', () => command.click());
      await card.locator('discord-button', { hasText: text('card.button.delete') }).waitFor();
      await picture(card, 'feed-of-post-card', { says: ['card.field.latest', 'card.button.posts'], shows: ['@nasa'] });
    },
  },
  {
    name: 'the statistics',
    async run({ page, picture }) {
      const stats = await page.run('stats');
      await picture(await stats.answer(), 'stats-answer', { says: ['stats.title', 'stats.field.postsHoy'] });
    },
  },
];
