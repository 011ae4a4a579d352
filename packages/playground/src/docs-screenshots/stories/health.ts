/**
 * The guide's page on feed health: a feed whose channel was deleted (and what the audit channel
 * says about it), a quiet feed, the paused one of the seed, `/feed list problems`, and the
 * threshold. Both feeds are deleted again at the end.
 */
import { DEMO_CHANNEL_IDS, DEMO_GUILD_ID } from '@feedbot/sandbox';
import type { Story } from '../story.js';
import { AUDIT_CHANNEL, chooseAuditChannel } from './audit.js';
import { createFeed, deleteFeed } from './steps.js';

const TEMPORARY_CHANNEL = 'temporal';
const ORPHAN = 'temporal.feed';
const QUIET = 'museo.quieto';
const DAY_MS = 86_400_000;

export const healthStories: Story[] = [
  {
    name: 'feed health',
    async run({ demo, page, picture }) {
      await chooseAuditChannel(page);
      // A feed the feed service has not forwarded anything for in nine days.
      const admin = demo.stack.sandbox.admin;
      const quiet = await admin.createFeed(DEMO_GUILD_ID, { cuenta: QUIET, canalId: DEMO_CHANNEL_IDS[2], tipos: ['post'], filtros: [] });
      await admin.addPost(DEMO_GUILD_ID, quiet.id, { publicadoDiscord: new Date(Date.now() - 9 * DAY_MS).toISOString() });

      // A feed into a channel that is then deleted.
      await page.createChannel(TEMPORARY_CHANNEL);
      await page.openChannel('news');
      await createFeed(page, ORPHAN, TEMPORARY_CHANNEL);
      await page.deleteChannel(TEMPORARY_CHANNEL);
      await page.openChannel(AUDIT_CHANNEL);
      await picture(await page.post(TEMPORARY_CHANNEL), 'audit-post-channel-deleted', { says: ['audit.channelDeleted.description'], shows: [`@${ORPHAN}`] });
      await page.openChannel('news');

      const list = await page.run('feed list', (options) => options.chooseValue('problemas', 'true'));
      await picture(await list.answer(), 'feed-list-problems', {
        says: ['health.warning.channelMissing', 'health.warning.inactive', 'health.list.filter.problemas'],
        shows: [`@${ORPHAN}`, `@${QUIET}`, '@spacex'],
      });

      const threshold = await page.run('feedbot health threshold', (options) => options.text('dias', 14));
      await picture(await threshold.answer(), 'health-threshold-answer', { says: ['health.threshold.set'], shows: ['14'] });
      await page.run('feedbot health threshold', (options) => options.text('dias', 7)).then((c) => c.answer());

      await deleteFeed(page, ORPHAN);
      await deleteFeed(page, QUIET);
    },
  },
];
