/**
 * /feed list | create | delete | posts | export | import — the guild's feeds, through the feed API. One file per
 * subcommand; this one assembles the definition and the declarations.
 */
import { InteractionContextType, SlashCommandBuilder } from 'discord.js';
import type { CommandModule } from '../../src/interactions/command.js';
import { localize } from '../../src/i18n/localize.js';
import { autocomplete } from './autocomplete.js';
import { createCardFeature } from './card.js';
import * as create from './create.js';
import * as del from './delete.js';
import * as exporting from '../../src/transfer/export-command.js';
import * as importing from '../../src/transfer/import-command.js';
import * as list from './list.js';
import * as posts from './posts.js';

const data = localize(new SlashCommandBuilder().setName('feed'), { description: 'cmd.feed.description' })
  .setContexts(InteractionContextType.Guild)
  .addSubcommand(list.build)
  .addSubcommand(create.build)
  .addSubcommand(del.build)
  .addSubcommand(posts.build)
  .addSubcommand(exporting.build)
  .addSubcommand(importing.build);

/** A fresh instance per running bot: it owns the delete confirmations' and import previews' timers. */
export function createFeedCommand(): CommandModule {
  const deletion = del.createDeleteFeature();
  const imports = importing.createImportFeature();
  // The list panel: the list's filters, the feed card's selects and buttons.
  const cards = createCardFeature();
  const panelSelects = [list.channelFilterSelect, list.stateFilterSelect];
  return {
    data,
    subcommands: { list: list.subcommand, create: create.subcommand, delete: deletion.subcommand, posts: posts.subcommand, export: exporting.subcommand, import: imports.subcommand },
    autocomplete,
    buttons: [list.pageButton, deletion.confirmButton, deletion.bulkConfirmButton, posts.pageButton, imports.confirmButton, deletion.pickerPageButton, ...cards.buttons],
    // The forms: /feed delete's picker and /feed create's form.
    selects: [deletion.pickerSelect, ...panelSelects, ...cards.selects],
    modals: [create.formModal],
    dispose() {
      deletion.dispose();
      imports.dispose();
      cards.dispose();
    },
  };
}
