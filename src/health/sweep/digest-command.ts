/**
 * /feedbot digest set <dia> <hora> | off | status | preview — the weekly digest in the audit channel
 * (src/health/sweep/digest.ts), Manage Server, answered privately. The hour is UTC and is shown
 * back as a Discord timestamp, so each reader sees it in local time; `preview` builds this week's
 * digest now (GET /stats and GET /feeds) and shows it only to the caller.
 */
import { TimestampStyles, time, type SlashCommandSubcommandGroupBuilder } from 'discord.js';
import type { SlashDeclaration, SubcommandGroup } from '../../interactions/command.js';
import { MANAGES_SETTINGS } from '../../interactions/preconditions.js';
import type { HandlerContext } from '../../interactions/context.js';
import { UserError } from '../../interactions/errors.js';
import type { MessageKey } from '../../i18n/index.js';
import { localize, localizedChoice } from '../../i18n/localize.js';
import { buildDigest } from './digest.js';
import { sweepReports } from './events.js';
import { digestEmbed } from '../../audit/render-sweep.js';
import { nextDigestAt } from './weeks.js';

const DAYS = [0, 1, 2, 3, 4, 5, 6] as const;
const dayKey = (day: number) => `digest.day.${day}` as MessageKey;

function build(group: SlashCommandSubcommandGroupBuilder): SlashCommandSubcommandGroupBuilder {
  return localize(group, { name: 'cmd.feedbot.digest.name', description: 'cmd.feedbot.digest.description' })
    .addSubcommand((s) =>
      localize(s.setName('set'), { name: 'cmd.feedbot.digest.set.name', description: 'cmd.feedbot.digest.set.description' })
        .addIntegerOption((o) =>
          localize(o.setName('dia'), { name: 'opt.dia.name', description: 'opt.dia.description' })
            .setRequired(true)
            .addChoices(...DAYS.map((day) => localizedChoice((t) => t(dayKey(day)), day))),
        )
        .addIntegerOption((o) => localize(o.setName('hora'), { name: 'opt.hora.name', description: 'opt.hora.description' }).setRequired(true).setMinValue(0).setMaxValue(23)),
    )
    .addSubcommand((s) => localize(s.setName('off'), { name: 'cmd.feedbot.digest.off.name', description: 'cmd.feedbot.digest.off.description' }))
    .addSubcommand((s) => localize(s.setName('status'), { name: 'cmd.feedbot.digest.status.name', description: 'cmd.feedbot.digest.status.description' }))
    .addSubcommand((s) => localize(s.setName('preview'), { name: 'cmd.feedbot.digest.preview.name', description: 'cmd.feedbot.digest.preview.description' }));
}

function sweeps(ctx: HandlerContext) {
  const running = ctx.services.sweeps;
  if (!running) throw new UserError('sweep.status.off');
  return running;
}

/** The next digest as Discord timestamps: relative (`next`) and full date and time (`at`). */
function when(at: number): { next: string; at: string } {
  const date = new Date(at);
  return { next: time(date, TimestampStyles.RelativeTime), at: time(date, TimestampStyles.LongDateTime) };
}

const set: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(interaction, ctx) {
    const day = interaction.options.getInteger('dia', true);
    const hour = interaction.options.getInteger('hora', true);
    const running = sweeps(ctx);
    const guildId = ctx.guildId();
    const plan = await running.store.update(guildId, (current) => {
      // A new day or hour starts a new schedule; the week already posted stays posted.
      const next = { day, hour, ...(current.digest?.lastWeek ? { lastWeek: current.digest.lastWeek } : {}) };
      return { next: { ...current, digest: next }, result: next };
    });
    running.planChanged(guildId, plan);
    const hasChannel = (await ctx.services.settings.get(guildId)).auditChannelId !== undefined;
    const description = ctx.t(hasChannel ? 'digest.set.done' : 'digest.set.noChannel', { day: ctx.t(dayKey(day)), ...when(nextDigestAt(day, hour, ctx.now())) });
    await ctx.respond.send({ embeds: [{ title: ctx.t('digest.cmd.title'), description }] });
  },
};

const off: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(_interaction, ctx) {
    const running = sweeps(ctx);
    const guildId = ctx.guildId();
    const had = await running.store.update(guildId, ({ digest, ...current }) => ({ next: current, result: digest !== undefined }));
    running.planChanged(guildId, undefined);
    await ctx.respond.send({ embeds: [{ title: ctx.t('digest.cmd.title'), description: ctx.t(had ? 'digest.off.done' : 'digest.off.none') }] });
  },
};

const status: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(_interaction, ctx) {
    const plan = (await sweeps(ctx).store.get(ctx.guildId())).digest;
    const lines = plan
      ? [
          ctx.t('digest.status.next', { day: ctx.t(dayKey(plan.day)), ...when(nextDigestAt(plan.day, plan.hour, ctx.now())) }),
          ...(plan.lastWeek ? [ctx.t('digest.status.last', { week: plan.lastWeek })] : []),
        ]
      : [ctx.t('digest.status.none')];
    await ctx.respond.send({ embeds: [{ title: ctx.t('digest.cmd.title'), description: lines.join('\n') }] });
  },
};

const preview: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(_interaction, ctx) {
    const running = sweeps(ctx);
    const guildId = ctx.guildId();
    await ctx.auth(); // No key: the usual explanation.
    const digest = await buildDigest(
      { ...ctx.services, store: running.store, reports: sweepReports(), now: () => ctx.now() },
      guildId,
      ctx.t,
    );
    if (!digest) throw new UserError('digest.status.none');
    await ctx.respond.send({ embeds: [digestEmbed(ctx.t, digest)] });
  },
};

export const group: SubcommandGroup = { name: 'digest', build, subcommands: { set, off, status, preview } };
