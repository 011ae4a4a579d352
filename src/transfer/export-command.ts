/**
 * /feed export — the server's feeds as two private attachments with the same data: JSON (the
 * versioned format /feed import reads, docs/export-format.md) and a CSV twin for spreadsheets.
 */
import type { SlashCommandSubcommandBuilder } from 'discord.js';
import type { SlashDeclaration } from '../interactions/command.js';
import { localize } from '../i18n/localize.js';
import { exportEmbed } from './render.js';
import { exportDocument, toCsv, toJson } from './format.js';

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('export'), { name: 'cmd.feed.export.name', description: 'cmd.feed.export.description' });
}

/** `feeds-<guild>-20261121-1200`: sorts by time, and says where it came from. */
function baseName(guildId: string, exportedAt: string): string {
  return `feeds-${guildId}-${exportedAt.slice(0, 16).replace(/[-:]/g, '').replace('T', '-')}`;
}

/** Anyone who can see /feed; private, since the files are for the one who asked. */
export const subcommand: SlashDeclaration = {
  guildOnly: true,
  ephemeral: true,
  async run(_interaction, ctx) {
    const guildId = ctx.guildId();
    const list = await ctx.call((api, auth) => api.listFeeds(auth, { fresh: true }));
    const doc = exportDocument(guildId, list.feeds, new Date(ctx.now()));
    const name = baseName(guildId, doc.exportedAt);
    // The responder acknowledges first and sends the files with the edit (HTTP mode needs it).
    await ctx.respond.send({
      embeds: [exportEmbed(ctx.t, doc.feeds.length)],
      files: [
        { attachment: Buffer.from(toJson(doc), 'utf8'), name: `${name}.json` },
        { attachment: Buffer.from(toCsv(doc), 'utf8'), name: `${name}.csv` },
      ],
    });
  },
};
