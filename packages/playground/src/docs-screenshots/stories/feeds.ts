/**
 * The guide's pages on feeds: the list, adding a feed for an account, deleting it, its latest
 * posts, and the server's statistics. Each language adds and deletes its own feed, so both runs
 * start from the same list.
 */
import type { Story } from '../story.js';

/** The account each language's story adds (and deletes again). */
const NEW_ACCOUNT = { en: 'natgeotravel', es: 'natgeoviajes' } as const;

export const feedStories: Story[] = [
  {
    name: 'list the feeds',
    async run({ page, picture }) {
      const list = await page.run('feed list');
      await picture(await list.answer(), 'feed-list-answer', { says: ['list.title'], shows: ['@nasa', '@natgeo', '@spacex', '@cocina.facil'] });
    },
  },
  {
    name: 'add a feed, then delete it',
    async run({ page, picture, lang }) {
      const account = NEW_ACCOUNT[lang];
      const created = await page.run('feed create', async (options) => {
        await options.text('cuenta', `@${account}`);
        await options.choose('canal', '# media');
        await options.chooseValue('tipos', 'post+reel');
      });
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
    name: 'the latest posts of a feed',
    async run({ page, picture }) {
      const posts = await page.run('feed posts', async (options) => {
        await options.suggest('id', 'nasa', '@nasa');
        await options.text('limite', 2);
      });
      const answer = await posts.answer();
      await posts.messages().locator('discord-embed[image]').nth(1).waitFor();
      await picture(answer, 'feed-posts-answer', { says: ['posts.header', 'posts.field.published'] });
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
