/**
 * /apikey set | status | remove — the server's feed API key, for admins only.
 *
 * `set` opens a modal so the key never appears in a channel; the key is probed against the API
 * before it is stored (encrypted) and is never shown again beyond its last 4 characters. A key
 * proven to be another server's is refused; one that could not be tied to this server is stored
 * as "ownership not verified" and says so (src/api-key/ownership.ts).
 */
import { InteractionContextType, PermissionFlagsBits, SlashCommandBuilder, type ModalSubmitInteraction } from 'discord.js';
import { modal, type CommandModule, type SlashDeclaration } from '../src/interactions/command.js';
import { MANAGES_KEY } from '../src/interactions/preconditions.js';
import type { HandlerContext } from '../src/interactions/context.js';
import { customId } from '../src/interactions/custom-id.js';
import { localize } from '../src/i18n/localize.js';
import { keyStatus, removeGuildKey } from '../src/api-key/operations.js';
import { KEY_INPUT_ID, storeKeyFromModal } from '../src/interactions/key-prompt.js';
import { keyModal, keySavedEmbed, keyStatusEmbed } from '../src/api-key/render.js';
import { noticeEmbed } from '../src/render/notice.js';

export const keyModalId = customId('apikey:set', {});

const data = localize(new SlashCommandBuilder().setName('apikey'), { name: 'cmd.apikey.name', description: 'cmd.apikey.description' })
  .setContexts(InteractionContextType.Guild)
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
  .addSubcommand((s) => localize(s.setName('set'), { name: 'cmd.apikey.set.name', description: 'cmd.apikey.set.description' }))
  .addSubcommand((s) => localize(s.setName('status'), { name: 'cmd.apikey.status.name', description: 'cmd.apikey.status.description' }))
  .addSubcommand((s) => localize(s.setName('remove'), { name: 'cmd.apikey.remove.name', description: 'cmd.apikey.remove.description' }));

const set: SlashDeclaration = {
  ...MANAGES_KEY,
  ephemeral: true,
  run: (_interaction, ctx) => ctx.respond.showModal(keyModal(ctx.t, { modal: keyModalId.encode({}), input: KEY_INPUT_ID })),
};

async function saveKey(interaction: ModalSubmitInteraction, ctx: HandlerContext): Promise<void> {
  const saved = await storeKeyFromModal(interaction, ctx);
  await ctx.respond.send({ embeds: [keySavedEmbed(ctx.t, saved.masked, saved.scopes, saved.ownership)] });
}

const status: SlashDeclaration = {
  ...MANAGES_KEY,
  ephemeral: true,
  async run(_interaction, ctx) {
    const key = await keyStatus(ctx.services, ctx.guildId());
    if (!key) {
      await ctx.respond.send({ embeds: [noticeEmbed(ctx.t('apikey.status.none'))] });
      return;
    }
    await ctx.respond.send({ embeds: [keyStatusEmbed(ctx.t, key)] });
  },
};

const remove: SlashDeclaration = {
  ...MANAGES_KEY,
  ephemeral: true,
  async run(interaction, ctx) {
    const removed = await removeGuildKey(ctx.services, ctx.guildId(), ctx.actor(), interaction.locale);
    await ctx.respond.send({ embeds: [noticeEmbed(ctx.t(removed ? 'apikey.removed' : 'apikey.removed.none'))] });
  },
};

export const apikeyCommand: CommandModule = {
  data,
  subcommands: { set, status, remove },
  modals: [modal({ ...MANAGES_KEY, id: keyModalId, answer: 'reply', ephemeral: true, run: saveKey })],
};
