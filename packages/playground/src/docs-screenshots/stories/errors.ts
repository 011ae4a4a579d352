/**
 * The guide's page of explanations: every answer the bot gives when it cannot do what was asked,
 * each provoked the way it happens in real life (a member without the permission, a feed id that
 * does not exist, a key removed, refused, regenerated, a spent budget, the service down).
 */
import { DOCS_KEYS, issueKey, spendBudget, takeServiceDown } from '../operator.js';
import type { Story } from '../story.js';
import { setKey } from './api-key.js';

export const errorStories: Story[] = [
  {
    name: 'a member may not create feeds',
    async run({ page, picture }) {
      await page.actAs('member');
      try {
        const refused = await page.run('feed create', async (options) => {
          await options.text('cuenta', 'natgeo');
          await options.choose('canal', '# news');
          await options.chooseValue('tipos', 'post');
        });
        await picture(await refused.answer(), 'error-missing-permission', { says: ['error.missingPermission'] });
      } finally {
        await page.actAs('admin');
      }
    },
  },
  {
    name: 'a feed that does not exist',
    async run({ page, picture }) {
      const posts = await page.run('feed posts', (options) => options.text('id', 999));
      await picture(await posts.answer(), 'error-unknown-feed', { says: ['error.notFound'], shows: ['999'] });
    },
  },
  {
    name: 'no key, then a key the API refuses',
    async run(ctx) {
      const { page, picture } = ctx;
      const removed = await page.run('apikey remove');
      await picture(await removed.answer(), 'apikey-remove-answer', { says: ['apikey.removed'] });
      const list = await page.run('feed list');
      await picture(await list.answer(), 'error-no-key', { says: ['error.noKey'] });
      await picture(await setKey(ctx, DOCS_KEYS.wrong), 'error-key-refused', { says: ['apikey.invalid'] });
      await setKey(ctx, DOCS_KEYS.full);
    },
  },
  {
    name: 'a regenerated key',
    async run(ctx) {
      await issueKey(ctx.demo, DOCS_KEYS.regenerated);
      const stats = await ctx.page.run('stats');
      await ctx.picture(await stats.answer(), 'error-key-regenerated', { says: ['error.unauthorized'] });
      await issueKey(ctx.demo, DOCS_KEYS.full);
      await setKey(ctx, DOCS_KEYS.full);
    },
  },
  {
    name: 'the request budget is spent',
    async run({ demo, page, picture }) {
      await spendBudget(demo, DOCS_KEYS.full);
      const stats = await page.run('stats');
      await picture(await stats.answer(), 'error-rate-limited', { says: ['error.rateLimited'] });
    },
  },
];

/** Last of all: the service stays down afterwards. */
export const outageStory: Story = {
  name: 'the feed service cannot be reached',
  async run({ demo, page, picture, lang }) {
    if (lang === 'en') await takeServiceDown(demo);
    const stats = await page.run('stats');
    await picture(await stats.answer(), 'error-unreachable', { says: ['error.connection'] });
  },
};
