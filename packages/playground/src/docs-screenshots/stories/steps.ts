/** Steps several stories share: adding and deleting a feed the way an admin does. */
import type { Conversation, GuidePage } from '../page.js';

/** `/feed create` for `account` into `channel` (its name); resolves with the conversation once answered. */
export async function createFeed(page: GuidePage, account: string, channel: string, kinds = 'post'): Promise<Conversation> {
  const created = await page.run('feed create', async (options) => {
    await options.text('cuenta', account);
    await options.choose('canal', `# ${channel}`);
    await options.chooseValue('tipos', kinds);
  });
  await created.answer();
  return created;
}

/** `/feed delete` of the feed of `account` (picked among the suggestions), confirmed. */
export async function deleteFeed(page: GuidePage, account: string): Promise<void> {
  const deleting = await page.run('feed delete', (options) => options.suggest('id', account, `@${account}`));
  const confirm = await deleting.answer();
  await confirm.locator('discord-button[type="destructive"]').click();
  await confirm.locator('discord-button').first().waitFor({ state: 'detached' });
}
