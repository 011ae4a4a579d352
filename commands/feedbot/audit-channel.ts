/**
 * /feedbot audit-channel set <canal> | off | status — where feedbot posts what changed (Manage
 * Server). `set` first checks that the bot can post embeds there and names what it lacks; a
 * post that fails later is reported once by `status` (the trail keeps it: src/audit/trail.ts).
 */
import { requireGuildChannel } from '../../src/interactions/chosen.js';
import { ChannelType, type Client, type SlashCommandSubcommandGroupBuilder } from 'discord.js';
import { missingPostPermissions } from '../../src/audit/post-permissions.js';
import type { SlashDeclaration, SubcommandGroup } from '../../src/interactions/command.js';
import { MANAGES_SETTINGS } from '../../src/interactions/preconditions.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { UserError } from '../../src/interactions/errors.js';
import { localize } from '../../src/i18n/localize.js';
import { auditOffEmbed, auditSetEmbed, auditStatusEmbed, permissionList } from './render-audit-channel.js';
import { sweepStatusField } from '../../src/health/sweep/status.js';

export const CHANNEL_TYPES = [ChannelType.GuildText, ChannelType.GuildAnnouncement] as const;

function build(group: SlashCommandSubcommandGroupBuilder): SlashCommandSubcommandGroupBuilder {
  return localize(group, { name: 'cmd.feedbot.audit.name', description: 'cmd.feedbot.audit.description' })
    .addSubcommand((s) =>
      localize(s.setName('set'), { name: 'cmd.feedbot.audit.set.name', description: 'cmd.feedbot.audit.set.description' }).addChannelOption((o) =>
        localize(o.setName('canal'), { name: 'opt.canal.name', description: 'opt.canal.audit.description' })
          .setRequired(true)
          .addChannelTypes(...CHANNEL_TYPES),
      ),
    )
    .addSubcommand((s) => localize(s.setName('off'), { name: 'cmd.feedbot.audit.off.name', description: 'cmd.feedbot.audit.off.description' }))
    .addSubcommand((s) => localize(s.setName('status'), { name: 'cmd.feedbot.audit.status.name', description: 'cmd.feedbot.audit.status.description' }));
}

/**
 * Makes `channelId` the audit channel once the bot is found able to post embeds there (else a
 * user error names what it lacks). Shared by `set` and /feedbot settings' channel select.
 */
export async function applyAuditChannel(ctx: HandlerContext, client: Client, channelId: string, locale: string): Promise<void> {
  const guildId = ctx.guildId();
  const channel = await requireGuildChannel(ctx, client, channelId);
  const missing = await missingPostPermissions(client, guildId, channelId, channel).catch((error: unknown) => {
    // Discord's refusal or an unexpected answer: logged without more than its kind, and nothing changes.
    ctx.services.logger.warn({ guildId, channelId, err: error }, "could not read the bot's permissions in the audit channel");
    throw new UserError('audit.set.checkFailed', { channel: channelId });
  });
  if (missing.length > 0) throw new UserError('audit.set.missing', { channel: channelId, missing: permissionList(ctx.t, missing) });
  // A new channel starts clean: a failure kept for the previous one is moot.
  const now = ctx.now();
  await ctx.services.settings.update(guildId, ({ auditFailure: _, ...current }) => ({
    ...current,
    auditChannelId: channelId,
    auditLocale: locale,
    auditSince: current.auditChannelId ? (current.auditSince ?? now) : now,
  }));
}

/** Turns the audit posts off; returns the channel they went to, if any. Shared by `off` and the settings panel. */
export async function turnAuditOff(ctx: HandlerContext): Promise<string | undefined> {
  const guildId = ctx.guildId();
  const was = (await ctx.services.settings.get(guildId)).auditChannelId;
  if (was) await ctx.services.settings.update(guildId, ({ auditChannelId: _c, auditFailure: _f, auditLocale: _l, auditSince: _s, ...current }) => current);
  return was;
}

const set: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(interaction, ctx) {
    const channel = interaction.options.getChannel('canal', true, [...CHANNEL_TYPES]);
    await applyAuditChannel(ctx, interaction.client, channel.id, interaction.locale);
    await ctx.respond.send({ embeds: [auditSetEmbed(ctx.t, channel.id)] });
  },
};

const off: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(_interaction, ctx) {
    const was = await turnAuditOff(ctx);
    await ctx.respond.send({ embeds: [auditOffEmbed(ctx.t, was)] });
  },
};

const status: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(_interaction, ctx) {
    const guildId = ctx.guildId();
    const settings = await ctx.services.settings.get(guildId);
    const failure = settings.auditFailure && !settings.auditFailure.reported ? settings.auditFailure : undefined;
    const embed = auditStatusEmbed(ctx.t, settings.auditChannelId, failure);
    // When the health checks last ran, what they found, when the next is due.
    const checks = settings.auditChannelId ? await sweepStatusField(ctx.services, ctx.guildId(), ctx.t) : undefined;
    await ctx.respond.send({ embeds: [checks ? { ...embed, fields: [...(embed.fields ?? []), checks] } : embed] });
    // Reported once: marked after the answer went out, unless a newer failure replaced it meanwhile.
    if (failure) {
      await ctx.services.settings.update(guildId, (current) =>
        current.auditFailure?.at === failure.at ? { ...current, auditFailure: { ...current.auditFailure, reported: true } } : current,
      );
    }
  },
};

export const group: SubcommandGroup = { name: 'audit-channel', build, subcommands: { set, off, status } };
