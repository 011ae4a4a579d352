/**
 * The guide's pages on the server's settings: /feedbot settings, one private panel with the key,
 * the audit channel, the feed-manager roles and the health threshold; a change from its selects
 * redraws it in place. The threshold is put back to 7 days at the end.
 */
import type { Story } from '../story.js';

export const settingsStories: Story[] = [
  {
    name: 'the settings panel',
    async run({ page, picture, lang }) {
      const settings = await page.run('feedbot settings');
      const panel = await settings.answer();
      await settings.select(2).waitFor();
      await picture(panel, 'settings-panel', {
        says: ['forms.settings.title', 'forms.settings.description', 'forms.settings.key', 'forms.settings.audit', 'forms.settings.managers', 'forms.settings.threshold', 'forms.settings.button.setKey'],
        shows: ['••••Qx7A'],
      });
      const days = (n: number) => (lang === 'en' ? `${n} days` : `${n} días`);
      // The line the redrawn panel says (the select's own options name the days too: not those).
      const changed = (n: number) => panel.getByText(lang === 'en' ? `Feeds without a post for ${n} days are now marked.` : `sin publicar desde hace ${n} días.`).first();
      await page.pick(settings.select(2), '14', days(14));
      await changed(14).waitFor();
      await picture(panel, 'settings-panel-changed', { says: ['forms.settings.done.threshold'] });
      await page.pick(settings.select(2), '7', days(7));
      await changed(7).waitFor();
    },
  },
];
