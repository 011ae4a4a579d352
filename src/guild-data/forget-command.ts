/**
 * /feedbot forget — deletes this server's feedbot data now (src/guild-data/forget.ts: the API key,
 * the settings, open confirmations, anything else kept per server), after a private Delete/Cancel
 * confirmation only the asker can press, that expires like /feed delete's. The audit channel, if
 * set, gets a last post FIRST: once the settings are gone nobody knows where it was. Manage
 * Server, checked when asking and again on Delete.
 */
import { ButtonStyle, ComponentType, TimestampStyles, time, type APIEmbed, type ButtonInteraction, type SlashCommandSubcommandBuilder } from 'discord.js';
import { z } from 'zod';
import { button, type ComponentRoute, type SlashDeclaration } from '../interactions/command.js';
import { MANAGES_SETTINGS } from '../interactions/preconditions.js';
import type { HandlerContext } from '../interactions/context.js';
import { customId, int, oneOf, snowflake } from '../interactions/custom-id.js';
import type { Translator } from '../i18n/index.js';
import { localize } from '../i18n/localize.js';
import type { MessageRow } from '../render/pager.js';
import { Colors } from '../render/style.js';
import { PendingConfirmations, confirmationExpiry } from '../interactions/confirmations.js';

const forgetConfirmId = customId('feedbot:forget', {
  answer: oneOf(['yes', 'no']),
  userId: snowflake,
  /** Unix seconds: refused after it, whatever the buttons show. */
  expires: int({ min: 1 }),
  /** The /feedbot forget interaction that asked: keys its open confirmation. */
  asked: snowflake,
});

/** What an open question keeps: nothing but that it is open (the guild is in its key). */
const pending = new PendingConfirmations('forget', z.object({ v: z.literal(1) }));

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('forget'), { name: 'cmd.feedbot.forget.name', description: 'cmd.feedbot.forget.description' });
}

function notice(t: Translator, key: 'forget.cancelled' | 'forget.expired', color: number = Colors.brand): APIEmbed {
  return { color, description: t(key) };
}

function question(t: Translator, expires: Date, ids: { confirm: string; cancel: string }): { embeds: APIEmbed[]; components: MessageRow[] } {
  return {
    embeds: [{ title: t('forget.title'), color: Colors.danger, description: t('forget.confirm', { expires: time(expires, TimestampStyles.RelativeTime) }) }],
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          { type: ComponentType.Button, custom_id: ids.confirm, label: t('forget.button.delete'), style: ButtonStyle.Danger },
          { type: ComponentType.Button, custom_id: ids.cancel, label: t('forget.button.cancel'), style: ButtonStyle.Secondary },
        ],
      },
    ],
  };
}

export const subcommand: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(interaction, ctx) {
    const { ttl, expires } = confirmationExpiry(ctx);
    const state = { userId: interaction.user.id, expires: Math.ceil(expires.getTime() / 1000), asked: interaction.id };
    const t = ctx.t;
    await pending.start(ctx, interaction.id, { v: 1 }, ttl, () => {
      void interaction
        .editReply({ embeds: [notice(t, 'forget.expired', Colors.warning)], components: [] })
        .catch((error: unknown) => ctx.services.logger.debug({ err: error }, 'could not expire a forget confirmation'));
    });
    await ctx.respond.send(question(t, expires, { confirm: forgetConfirmId.encode({ answer: 'yes', ...state }), cancel: forgetConfirmId.encode({ answer: 'no', ...state }) }));
  },
};

export const confirmButton: ComponentRoute<ButtonInteraction> = button({
  id: forgetConfirmId,
  guildOnly: true,
  invokerOnly: true,
  answer: 'update',
  ephemeral: true,
  async run(interaction, ctx: HandlerContext, { answer, asked, expires }) {
    const expired = ctx.now() > expires * 1000;
    // Not a declared precondition: Cancel and an expired confirmation need no permission. Checked
    // before the question is taken (as bulk delete does), so a refused press leaves it open until
    // it expires: pressed again once the permission is back, it still deletes.
    const actor = answer === 'yes' && !expired ? ctx.requireManageGuild('manageSettings') : undefined;
    // Whatever this press leads to from here, the question is answered (and its expiry timer released).
    const open = await pending.take(ctx, asked);
    if (open === undefined || expired) {
      await ctx.respond.send({ embeds: [notice(ctx.t, 'forget.expired', Colors.warning)], components: [] });
      return;
    }
    if (answer !== 'yes' || !actor) {
      await ctx.respond.send({ embeds: [notice(ctx.t, 'forget.cancelled')], components: [] });
      return;
    }
    const guildId = ctx.guildId();
    const { audit, guildData } = ctx.services;
    if (!guildData) throw new Error('forgetting servers is not wired into this bot');
    // The last post first, while the settings still say where the audit channel is.
    audit.record(guildId, { kind: 'guildForgotten', actor }, interaction.locale);
    await audit.flush(guildId);
    await guildData.forget(guildId, 'command');
    await ctx.respond.send({ embeds: [{ title: ctx.t('forget.done.title'), color: Colors.success, description: ctx.t('forget.done') }], components: [] });
  },
});

/** On shutdown: this process's expiry timers (the questions stay answerable elsewhere until they lapse). */
export function dispose(): void {
  pending.dispose();
}
