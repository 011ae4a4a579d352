/**
 * The guide's page on the audit channel: the owner makes #audit-log, an admin points feedbot at
 * it, and a change (a new feed) appears there. Each language sets the channel itself: posts speak
 * the language of the admin who chose the channel.
 */
import type { Conversation, GuidePage } from '../page.js';
import type { Story } from '../story.js';
import { createFeed, deleteFeed } from './steps.js';

export const AUDIT_CHANNEL = 'audit-log';

/**
 * Points the audit channel at #audit-log in the story's language (its posts speak the language of
 * the admin who chose it), before a story photographs a post there.
 */
export async function chooseAuditChannel(page: GuidePage): Promise<Conversation> {
  const set = await page.run('feedbot audit-channel set', (options) => options.choose('canal', `# ${AUDIT_CHANNEL}`));
  await set.answer();
  return set;
}
/** The account each language's story adds (and deletes again) to have something to audit. */
const ACCOUNT = { en: 'esa', es: 'esa.es' } as const;

export const auditStories: Story[] = [
  {
    name: 'the audit channel',
    async run({ page, picture, lang }) {
      if ((await page.channel(AUDIT_CHANNEL).count()) === 0) {
        await page.createChannel(AUDIT_CHANNEL);
        await page.openChannel('news');
      }
      const set = await chooseAuditChannel(page);
      await picture(await set.answer(), 'audit-channel-set-answer', { says: ['audit.title', 'audit.set.done'], shows: [AUDIT_CHANNEL] });

      await createFeed(page, ACCOUNT[lang], 'news');
      await page.openChannel(AUDIT_CHANNEL);
      await picture(await page.post(`@${ACCOUNT[lang]}`), 'audit-post-feed-created', { says: ['audit.feedCreated.title', 'audit.field.forwardsTo'], shows: [`@${ACCOUNT[lang]}`] });
      await page.openChannel('news');

      const status = await page.run('feedbot audit-channel status');
      await picture(await status.answer(), 'audit-channel-status-answer', { says: ['audit.status.channel'], shows: [AUDIT_CHANNEL] });
      await deleteFeed(page, ACCOUNT[lang]);
    },
  },
];
