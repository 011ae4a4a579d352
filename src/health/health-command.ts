/**
 * /feedbot health threshold [dias] — after how many days without a post `/feed list` marks a feed
 * (per server; default 7). Without `dias` it shows the current value. Manage Server, like the
 * rest of /feedbot.
 */
import type { APIEmbed } from 'discord.js';
import type { SlashDeclaration, SubcommandGroup } from '../interactions/command.js';
import { MANAGES_SETTINGS } from '../interactions/preconditions.js';
import type { HandlerContext } from '../interactions/context.js';
import { localize } from '../i18n/localize.js';
import type { Translator } from '../i18n/index.js';
import { Colors } from '../render/style.js';
import { DEFAULT_STALE_AFTER_DAYS, MAX_STALE_AFTER_DAYS } from '../settings/schema.js';
import { boundedOption, integerOption, type IntegerOptionSpec } from '../interactions/integer-options.js';

const STALE_DAYS: IntegerOptionSpec = { name: 'dias', label: 'opt.dias.name', min: 1, max: MAX_STALE_AFTER_DAYS };

function thresholdEmbed(t: Translator, description: string, color: number): APIEmbed {
  return { title: t('health.threshold.title'), color, description };
}

/** Stores the threshold (`threshold dias:` and the settings panel's select); `days` is already bounded. */
export async function setStaleThreshold(ctx: HandlerContext, days: number): Promise<void> {
  await ctx.services.settings.update(ctx.guildId(), (current) => ({ ...current, staleAfterDays: days }));
}

const threshold: SlashDeclaration = {
  ...MANAGES_SETTINGS,
  ephemeral: true,
  async run(interaction, ctx) {
    const guildId = ctx.guildId();
    const days = integerOption(interaction, ctx.t, STALE_DAYS);
    if (days === null) {
      const stored = (await ctx.services.settings.get(guildId)).staleAfterDays;
      const description =
        stored === undefined
          ? ctx.t('health.threshold.currentDefault', { days: DEFAULT_STALE_AFTER_DAYS })
          : ctx.t('health.threshold.current', { days: stored });
      await ctx.respond.send({ embeds: [thresholdEmbed(ctx.t, description, Colors.brand)] });
      return;
    }
    await setStaleThreshold(ctx, days);
    await ctx.respond.send({ embeds: [thresholdEmbed(ctx.t, ctx.t('health.threshold.set', { days }), Colors.success)] });
  },
};

export const group: SubcommandGroup = {
  name: 'health',
  build: (g) =>
    localize(g, { name: 'cmd.feedbot.health.name', description: 'cmd.feedbot.health.description' }).addSubcommand((s) =>
      localize(s.setName('threshold'), { name: 'cmd.feedbot.health.threshold.name', description: 'cmd.feedbot.health.threshold.description' }).addIntegerOption(
        (o) => localize(boundedOption(o, STALE_DAYS), { name: 'opt.dias.name', description: 'opt.dias.description' }),
      ),
    ),
  subcommands: { threshold },
};
