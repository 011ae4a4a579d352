/**
 * The guide's page on export and import, and bulk delete: the export's two files, an import of a
 * backup (two new feeds, one already there, one for a channel this server lacks): its preview and
 * its report; then the two imported feeds deleted at once, by channel.
 */
import { DEMO_CHANNEL_IDS, DEMO_GUILD_ID } from '@feedbot/sandbox';
import { DEMO_CHANNELS } from '../../stack.js';
import type { Story } from '../story.js';

const ANNOUNCEMENTS = DEMO_CHANNELS.find((c) => c.name === 'announcements')!;

/** A backup as `/feed export` writes it (docs/export-format.md), made earlier on a fixed date. */
const BACKUP = {
  name: 'feeds-backup.json',
  mimeType: 'application/json',
  buffer: Buffer.from(
    JSON.stringify(
      {
        format: 'feedbot-feeds',
        version: 1,
        exportedAt: '2025-06-01T08:00:00.000Z',
        guildId: DEMO_GUILD_ID,
        feeds: [
          { id: 1, cuenta: 'nasa', canal: DEMO_CHANNEL_IDS[0], tipos: ['post', 'reel'], filtros: 0, estado: 'activo' },
          { id: 8, cuenta: 'noaa', canal: ANNOUNCEMENTS.id, tipos: ['post'], filtros: 0, estado: 'activo' },
          { id: 9, cuenta: 'esa.webb', canal: ANNOUNCEMENTS.id, tipos: ['post', 'reel'], filtros: 0, estado: 'activo' },
          { id: 10, cuenta: 'museo_local', canal: '1100000000000000201', tipos: ['post'], filtros: 0, estado: 'activo' },
        ],
      },
      null,
      2,
    ),
  ),
};

export const transferStories: Story[] = [
  {
    name: 'export the feeds',
    async run({ page, picture }) {
      const exported = await page.run('feed export');
      const answer = await exported.answer();
      await answer.getByTestId('attachment').nth(1).waitFor();
      await picture(answer, 'export-answer', { says: ['export.title'], shows: ['.json', '.csv'] });
    },
  },
  {
    name: 'import a backup, then delete what it added by channel',
    async run({ page, picture, text }) {
      const importing = await page.run('feed import', (options) => options.file('archivo', BACKUP));
      const preview = await importing.answer();
      await preview.locator('discord-button').first().waitFor();
      await picture(preview, 'import-preview', { says: ['import.preview.title', 'import.preview.create'], shows: ['@noaa', '@esa.webb'] });
      await preview.locator('discord-button').first().click();
      const report = importing.messages().filter({ hasText: text('import.report.title') }).last();
      await report.waitFor();
      await picture(report, 'import-report', { says: ['import.report.title', 'import.report.created'], shows: ['@noaa'] });

      const deleting = await page.run('feed delete', (options) => options.choose('canal', `📢 ${ANNOUNCEMENTS.name}`));
      const confirm = await deleting.answer();
      await confirm.locator('discord-button[type="destructive"]').waitFor();
      await picture(confirm, 'bulk-delete-confirm', { says: ['bulkDelete.confirm.title', 'bulkDelete.confirm.channel'], shows: ['@noaa', '@esa.webb'] });
      await confirm.locator('discord-button[type="destructive"]').click();
      const done = deleting.messages().filter({ hasText: text('bulkDelete.report.title') }).last();
      await done.waitFor();
      await picture(done, 'bulk-delete-done', { says: ['bulkDelete.report.title', 'bulkDelete.report.deleted'] });
    },
  },
];
