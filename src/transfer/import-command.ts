/**
 * /feed import <archivo> — creates feeds from a /feed export file (JSON or its CSV twin).
 *
 * Checks everything first (size, format, rows, channels of this server, duplicates in the file
 * and of existing feeds) and shows a private preview with Import / Cancel. The checked plan is
 * kept in the pending store (shared by the replicas: the press may reach another), keyed by the
 * asking interaction (a custom_id has room for 100 characters only); Import (Manage Server, checked
 * again) holds the server's import for the whole run, re-lists the feeds, skips anything created
 * meanwhile and runs the creates through the batch runner, which edits one progress message and
 * waits out spent request budgets.
 */
import type { ButtonInteraction, SlashCommandSubcommandBuilder } from 'discord.js';
import { button, type ComponentRoute, type SlashDeclaration } from '../interactions/command.js';
import type { HandlerContext } from '../interactions/context.js';
import { customId, int, oneOf, snowflake } from '../interactions/custom-id.js';
import { explain } from '../interactions/explain.js';
import { UserError } from '../interactions/errors.js';
import { localize } from '../i18n/localize.js';
import {
  batchStopLine,
  importCancelledEmbed,
  importExpiredEmbed,
  importPreview,
  importProgressEmbed,
  importReportEmbed,
} from './render.js';
import { runBatch, tokenDeadline } from './batch.js';
import { batchHandler } from '../interactions/batch-handler.js';
import { downloadImportFile } from './download.js';
import { readImportFile } from './format.js';
import { importOutcome, importSteps, type Importer } from './importer.js';
import { claimServerImport } from './import-lock.js';
import { planImport, refreshPlan, type ImportPlan } from './plan.js';
import { PendingConfirmations } from '../interactions/confirmations.js';
import { ImportPlanSchema } from './plan-schema.js';

/** How long a preview can be acted on (tests shorten it with `confirmTtlMs`). */
const IMPORT_PREVIEW_TTL_MS = 5 * 60_000;
/** In HTTP mode the channel list is fetched; the answer is deferred by then, so it may take a while. */
const CHANNEL_LOOKUP_MS = 5_000;

/** `asked`: the /feed import interaction whose preview this is; it keys the plan kept here. */
const importConfirmId = customId('feed:import', {
  answer: oneOf(['yes', 'no']),
  asked: snowflake,
  userId: snowflake,
  /** Unix seconds: refused after it, whatever the buttons show. */
  expires: int({ min: 1 }),
});

export function build(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return localize(s.setName('import'), { name: 'cmd.feed.import.name', description: 'cmd.feed.import.description' }).addAttachmentOption((o) =>
    localize(o.setName('archivo'), { name: 'opt.archivo.name', description: 'opt.archivo.import.description' }).setRequired(true),
  );
}

interface ImportFeature {
  subcommand: SlashDeclaration;
  confirmButton: ComponentRoute<ButtonInteraction>;
  /** Drops open previews and stops running imports after their current step. */
  dispose(): void;
}

/** One per running bot: the expiry timers of the previews it showed, and its running imports, belong to it. */
export function createImportFeature(): ImportFeature {
  const previews = new PendingConfirmations<ImportPlan>('import', ImportPlanSchema);
  const stopping = new AbortController();

  const subcommand: SlashDeclaration = {
    guildOnly: true,
    // Manage Server only: feed-manager roles create and delete feeds one by one, not a server's whole setup.
    requires: { permission: 'ManageGuild', action: 'createFeed' },
    ephemeral: true,
    async run(interaction, ctx) {
      const guildId = ctx.guildId();
      const attachment = interaction.options.getAttachment('archivo', true);
      const file = await downloadImportFile(
        { url: attachment.url, name: attachment.name, size: attachment.size, contentType: attachment.contentType },
        ctx.services.downloads ? { dispatcher: ctx.services.downloads } : {},
      );
      const rows = readImportFile(file.text, file.kind);
      const [list, channels] = await Promise.all([
        ctx.call((api, auth) => api.listFeeds(auth, { fresh: true })),
        ctx.services.channels.channelTypes(guildId, CHANNEL_LOOKUP_MS),
      ]);
      if (!channels) throw new UserError('transfer.channelsUnknown');
      const plan = planImport(rows, list.feeds, channels);

      const ttl = ctx.services.confirmTtlMs ?? IMPORT_PREVIEW_TTL_MS;
      const expires = new Date(ctx.now() + ttl);
      const state = { asked: interaction.id, userId: interaction.user.id, expires: Math.ceil(expires.getTime() / 1000) };
      const ids = { confirm: importConfirmId.encode({ answer: 'yes', ...state }), cancel: importConfirmId.encode({ answer: 'no', ...state }) };
      const t = ctx.t;
      // Kept before it is shown: a press right after, on any replica, finds it. Nothing to import: no buttons, nothing kept.
      if (plan.create.length > 0) {
        await previews.start(ctx, interaction.id, plan, ttl, () => {
          void interaction
            .editReply({ embeds: [importExpiredEmbed(t)], components: [] })
            .catch((error: unknown) => ctx.services.logger.debug({ err: error }, 'could not expire an import preview'));
        });
      }
      await ctx.respond.send(importPreview(t, { fileName: attachment.name, plan, expires, ids }));
    },
  };

  const confirmButton = button({
    id: importConfirmId,
    guildOnly: true,
    invokerOnly: true,
    answer: 'update',
    ephemeral: true,
    async run(interaction, ctx, { answer, asked, expires }) {
      // Held first, on any replica: two presses arriving together (on one replica or two) start one import.
      const claim = await previews.claim(ctx, asked);
      if (!claim) {
        // A second press while it runs: acknowledge it and leave the progress message alone.
        await ctx.respond.defer();
        return;
      }
      try {
        if (ctx.now() > expires * 1000) {
          await previews.take(ctx, asked);
          await ctx.respond.send({ embeds: [importExpiredEmbed(ctx.t)], components: [] });
          return;
        }
        if (answer === 'yes') await importPressed(interaction, ctx, asked);
        else await cancelPressed(ctx, asked);
      } finally {
        await claim.release();
      }
    },
  });

  /**
   * Manage Server (not a declared precondition: Cancel and an expired preview need none) and the
   * server's import hold (another import of this server may be running, from another preview, on
   * any replica) are both checked before the plan is taken: a refused press leaves the preview
   * usable until it expires. The hold lasts the whole run.
   */
  async function importPressed(interaction: ButtonInteraction, ctx: HandlerContext, asked: string): Promise<void> {
    ctx.requireManageGuild('createFeed');
    const hold = await claimServerImport(ctx.services, ctx.guildId(), interaction.id);
    if (!hold) throw new UserError('import.alreadyRunning');
    try {
      const plan = await previews.take(ctx, asked);
      // None: expired a moment ago, already answered, or asked before a restart (without a shared store).
      if (plan) await runImport(interaction, ctx, plan, stopping.signal);
      else await ctx.respond.send({ embeds: [importExpiredEmbed(ctx.t)], components: [] });
    } finally {
      await hold.release();
    }
  }

  async function cancelPressed(ctx: HandlerContext, asked: string): Promise<void> {
    const plan = await previews.take(ctx, asked);
    await ctx.respond.send({ embeds: [plan ? importCancelledEmbed(ctx.t) : importExpiredEmbed(ctx.t)], components: [] });
  }

  return {
    subcommand,
    confirmButton,
    dispose() {
      previews.dispose();
      stopping.abort();
    },
  };
}

/** Import pressed (the permission checked again): skips what exists by now, creates the rest. */
async function runImport(interaction: ButtonInteraction, ctx: HandlerContext, asked: ImportPlan, signal: AbortSignal): Promise<void> {
  const t = ctx.t;
  const current = await ctx.call((api, auth) => api.listFeeds(auth, { fresh: true }));
  const plan = refreshPlan(asked, current.feeds);
  const report = await runBatch(batchHandler(ctx), {
    steps: importSteps(importer(ctx), plan.create),
    render: (progress) => ({ embeds: [importProgressEmbed(t, progress)], components: [] }),
    deadline: tokenDeadline(interaction),
    signal,
  });
  const outcome = importOutcome(t, report, plan.create, plan.present.length);
  let stopLine: string | undefined;
  if (report.stop) {
    const error = report.stop.reason === 'error' ? explain(report.stop.error, { t }) : undefined;
    stopLine = batchStopLine(t, report.stop, error?.message);
    const log = { stop: report.stop.reason, created: outcome.created.length, notAttempted: outcome.notAttempted.length };
    if (error?.ref) ctx.services.logger.error({ ...log, err: report.stop.reason === 'error' ? report.stop.error : undefined, ref: error.ref }, 'import stopped');
    else ctx.services.logger.info(log, 'import stopped');
  }
  await ctx.respond.send({ embeds: [importReportEmbed(t, { ...outcome, ...(stopLine ? { stopLine } : {}) })], components: [] });
}

/** Who imports, for the steps: the server, the member the audit trail names, the API with the key. */
function importer(ctx: HandlerContext): Importer {
  return { services: ctx.services, guildId: ctx.guildId(), actor: ctx.actor(), locale: ctx.interaction.locale, call: (op) => ctx.call(op) };
}
