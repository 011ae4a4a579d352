/**
 * /feed list | create | delete | posts — the guild's feeds, through the feed API. One file per
 * subcommand; this one assembles the definition and the declarations.
 */
import { InteractionContextType, SlashCommandBuilder } from 'discord.js';
import type { CommandModule } from '../../src/bot/command.js';
import { localize } from '../../src/i18n/localize.js';
import { autocomplete } from './autocomplete.js';
import * as create from './create.js';
import * as del from './delete.js';
import * as list from './list.js';
import * as posts from './posts.js';

export const data = localize(new SlashCommandBuilder().setName('feed'), { description: 'cmd.feed.description' })
  .setContexts(InteractionContextType.Guild)
  .addSubcommand(list.build)
  .addSubcommand(create.build)
  .addSubcommand(del.build)
  .addSubcommand(posts.build);

/** A fresh instance per running bot: it owns the delete confirmations' expiry timers. */
export function createFeedCommand(): CommandModule {
  const deletion = del.createDeleteFeature();
  return {
    data,
    subcommands: { list: list.subcommand, create: create.subcommand, delete: deletion.subcommand, posts: posts.subcommand },
    autocomplete,
    buttons: [list.pageButton, deletion.confirmButton, posts.pageButton],
    dispose: deletion.dispose,
  };
}
