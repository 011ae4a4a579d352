/**
 * The guide's page on the API key: setting it (the private form, then the answer with its
 * scopes), a key without every scope, the status, removing it.
 */
import { DOCS_KEYS, issueKey } from '../operator.js';
import type { Story, StoryContext } from '../story.js';

/** `/apikey set` with `key`, as an admin pastes it; returns the answer. */
export async function setKey({ page }: StoryContext, key: string) {
  const conversation = await page.run('apikey set');
  await page.modal().waitFor();
  await page.submitModal(key);
  return conversation.answer();
}

export const apiKeyStories: Story[] = [
  {
    name: 'set the key',
    async run(ctx) {
      const { page, picture } = ctx;
      await issueKey(ctx.demo, DOCS_KEYS.full);
      const conversation = await page.run('apikey set');
      const form = page.modal();
      await form.locator('.modal-field input').waitFor();
      await picture(form, 'apikey-set-form', { says: ['apikey.modal.title', 'apikey.modal.description'] });
      await page.submitModal(DOCS_KEYS.full);
      await picture(await conversation.answer(), 'apikey-set-answer', { says: ['apikey.set.title', 'apikey.ownership.verified'], shows: ['Qx7A'] });
    },
  },
  {
    name: 'a key without every scope',
    async run(ctx) {
      await issueKey(ctx.demo, DOCS_KEYS.readOnly, ['feeds:read']);
      await ctx.picture(await setKey(ctx, DOCS_KEYS.readOnly), 'apikey-set-missing-scopes', { says: ['apikey.set.title', 'apikey.set.missingScopes'], shows: ['Rd3B'] });
      const stats = await ctx.page.run('stats');
      await ctx.picture(await stats.answer(), 'error-missing-scope', { says: ['error.forbidden'], shows: ['stats:read'] });
      await issueKey(ctx.demo, DOCS_KEYS.full);
      await setKey(ctx, DOCS_KEYS.full);
    },
  },
  {
    name: 'the key status',
    async run(ctx) {
      const status = await ctx.page.run('apikey status');
      await ctx.picture(await status.answer(), 'apikey-status-answer', { says: ['apikey.status.title', 'apikey.status.setBy'], shows: ['Qx7A'] });
    },
  },
];
