/**
 * The guide's page on feed managers: Moderators (Max's role) becomes a feed-manager role, Max
 * creates a feed, and the audit channel names the role that allowed it. The role is removed again
 * at the end, so later stories see a member without rights.
 */
import type { Story } from '../story.js';
import { AUDIT_CHANNEL, chooseAuditChannel } from './audit.js';
import { createFeed, deleteFeed } from './steps.js';

const ROLE = 'Moderators';
const ACCOUNT = { en: 'natgeokids', es: 'natgeoninos' } as const;

export const managerStories: Story[] = [
  {
    name: 'feed managers',
    async run({ page, picture, lang }) {
      await chooseAuditChannel(page);
      const added = await page.run('feedbot managers add', (options) => options.choose('rol', `@${ROLE}`));
      await picture(await added.answer(), 'managers-add-answer', { says: ['managers.added'], shows: [ROLE] });
      const list = await page.run('feedbot managers list');
      await picture(await list.answer(), 'managers-list-answer', { says: ['managers.roles', 'managers.allows.name'], shows: [ROLE] });

      await page.actAs('member');
      try {
        await createFeed(page, ACCOUNT[lang], 'news');
      } finally {
        await page.actAs('admin');
      }
      await page.openChannel(AUDIT_CHANNEL);
      await picture(await page.post(`@${ACCOUNT[lang]}`), 'audit-post-by-manager', { says: ['audit.feedCreated.title'], shows: [ROLE, 'Max'] });
      await page.openChannel('news');

      await deleteFeed(page, ACCOUNT[lang]);
      await page.run('feedbot managers remove', (options) => options.choose('rol', `@${ROLE}`)).then((c) => c.answer());
    },
  },
];
