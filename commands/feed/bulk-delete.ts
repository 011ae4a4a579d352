/**
 * /feed delete canal:#channel | problemas:true — every feed of one channel, or every feed with a
 * health warning. One private confirmation lists them; the plan is kept in the pending store
 * (shared by the replicas: the press may reach another), keyed by the asking interaction (a
 * custom_id has room for 100 characters only). Delete checks the permission again, skips the
 * feeds gone meanwhile, and deletes the rest one by one through the batch runner
 * (src/transfer/batch.ts): one progress message, waits for the request budget's reset, stops
 * before the interaction's token expires, then a final report. Each feed deleted gets its audit
 * post.
 */
import type { ButtonInteraction, ChatInputCommandInteraction, StringSelectMenuInteraction } from 'discord.js';
import type { DeleteFeedResponse } from '@feedbot/feed-api-contract';
import type { ApiAuth } from '../../src/api/client.js';
import { NotFoundError, RateGateRefusalError, RateLimitedError } from '../../src/api/errors.js';
import type { Actor, FeedSummary } from '../../src/audit/events.js';
import { button, type ComponentRoute } from '../../src/interactions/command.js';
import type { HandlerContext } from '../../src/interactions/context.js';
import { customId, int, oneOf, snowflake } from '../../src/interactions/custom-id.js';
import { UserError } from '../../src/interactions/errors.js';
import { explain } from '../../src/interactions/explain.js';
import { feedWarnings, healthView, warningText } from '../../src/health/feed-health.js';
import { quotedApiText } from '../../src/render/api-text.js';
import {
  bulkDeleteCancelledEmbed,
  bulkDeleteConfirmation,
  bulkDeleteReportEmbed,
  confirmationExpiredEmbed,
  type BulkDeleteOutcome,
} from './render-delete.js';
import { batchProgressEmbed, batchStopLine } from '../../src/transfer/render.js';
import { StepRefusedError, runBatch, tokenDeadline, type BatchStep, type BatchStop } from '../../src/transfer/batch.js';
import { batchHandler } from '../../src/interactions/batch-handler.js';
import { PendingConfirmations, confirmationExpiry } from '../../src/interactions/confirmations.js';
import { expireConfirmation, feedSummary } from './confirmations.js';
import { BulkPlanSchema } from './pending-values.js';

/** Which feeds a bulk delete is about: a channel's, the warned ones, or those chosen in the picker. */
export type BulkTarget = { kind: 'channel'; channelId: string } | { kind: 'problems' } | { kind: 'chosen'; ids: readonly number[] };

/** What asks: /feed delete's slash command, or its picker's select (whose message the confirmation replaces). */
type Asking = ChatInputCommandInteraction | StringSelectMenuInteraction;

/** `asked`: the /feed delete interaction whose plan the buttons answer. */
const bulkDeleteConfirmId = customId('feed:bulk-delete', {
  answer: oneOf(['yes', 'no']),
  userId: snowflake,
  /** Unix seconds: the confirmation is refused after it, whatever the buttons show. */
  expires: int({ min: 1 }),
  asked: snowflake,
});

/** A step's success: deleted now, or already gone (a 404 means the feed is not there: done). */
type StepResult = 'deleted' | 'gone';

export interface BulkDelete {
  ask(interaction: Asking, ctx: HandlerContext, target: BulkTarget): Promise<void>;
  confirmButton: ComponentRoute<ButtonInteraction>;
  dispose(): void;
}

/** One per running bot: the expiry timers of the plans it asked, and its running deletes, belong to it. */
export function createBulkDelete(): BulkDelete {
  const plans = new PendingConfirmations<readonly FeedSummary[]>('bulk-delete', BulkPlanSchema);
  /** Aborted when the bot stops: a running delete ends with its report instead of being cut. */
  const stopping = new AbortController();

  async function ask(interaction: Asking, ctx: HandlerContext, target: BulkTarget): Promise<void> {
    const [list, view] = await Promise.all([ctx.call((api, auth) => api.listFeeds(auth)), healthView(ctx.services, ctx.guildId())]);
    const chosen = list.feeds.flatMap((feed) => {
      const warnings = feedWarnings(feed, view);
      const wanted = target.kind === 'channel' ? feed.canal === target.channelId : target.kind === 'chosen' ? target.ids.includes(feed.id) : warnings.length > 0;
      return wanted ? [{ feed: feedSummary(feed), marks: warningText(ctx.t, warnings, view.staleAfterDays) }] : [];
    });
    if (chosen.length === 0) {
      if (target.kind === 'channel') throw new UserError('bulkDelete.none.channel', { channel: target.channelId });
      throw new UserError(target.kind === 'chosen' ? 'forms.delete.chosenGone' : 'bulkDelete.none.problems');
    }
    const { ttl, expires } = confirmationExpiry(ctx);
    const state = { userId: interaction.user.id, expires: Math.ceil(expires.getTime() / 1000), asked: interaction.id };
    await plans.start(ctx, interaction.id, chosen.map(({ feed }) => feed), ttl, expireConfirmation(interaction, ctx));
    await ctx.respond.send(
      bulkDeleteConfirmation(
        ctx.t,
        {
          ...(target.kind === 'channel' ? { channelId: target.channelId } : {}),
          ...(target.kind === 'chosen' ? { chosen: true } : {}),
          feeds: chosen,
          expires,
          viaRoleId: ctx.actor().viaRoleId,
        },
        { confirm: bulkDeleteConfirmId.encode({ answer: 'yes', ...state }), cancel: bulkDeleteConfirmId.encode({ answer: 'no', ...state }) },
      ),
    );
  }

  const confirmButton = button({
    id: bulkDeleteConfirmId,
    guildOnly: true,
    invokerOnly: true,
    answer: 'update',
    ephemeral: true,
    async run(interaction, ctx, { answer, asked, expires }) {
      // Held, on any replica, by a press whose delete runs: its progress is on this very message,
      // which answering "expired" would replace.
      const claim = await plans.claim(ctx, asked);
      if (!claim) throw new UserError('bulkDelete.alreadyRunning');
      try {
        const expired = ctx.now() > expires * 1000;
        // Not a declared precondition: Cancel and an expired confirmation need no permission. Checked
        // before the plan is taken, so a refused press leaves the confirmation usable until it expires.
        const actor = answer === 'yes' && !expired ? await ctx.requireFeedManager('deleteFeed') : undefined;
        // Whatever this press leads to from here, the plan is answered (and its expiry timer released).
        const feeds = await plans.take(ctx, asked);
        if (!feeds || expired) {
          await ctx.respond.send({ embeds: [confirmationExpiredEmbed(ctx.t)], components: [] });
          return;
        }
        if (!actor) {
          await ctx.respond.send({ embeds: [bulkDeleteCancelledEmbed(ctx.t)], components: [] });
          return;
        }
        await deleteAll(interaction, ctx, feeds, actor, stopping.signal);
      } finally {
        await claim.release();
      }
    },
  });

  return {
    ask,
    confirmButton,
    dispose() {
      plans.dispose();
      stopping.abort();
    },
  };
}

/**
 * The ids still listed, to skip feeds gone since the confirmation (the guild's cached list, which
 * every create and delete through the bot refreshes). Unknown when the budget is spent: then a
 * 404 tells, feed by feed, within the batch's waits.
 */
async function listedIds(ctx: HandlerContext, auth: ApiAuth): Promise<ReadonlySet<number> | undefined> {
  try {
    return new Set((await ctx.services.api.listFeeds(auth)).feeds.map((feed) => feed.id));
  } catch (error) {
    if (error instanceof RateGateRefusalError || error instanceof RateLimitedError) return undefined;
    throw error;
  }
}

async function deleteAll(interaction: ButtonInteraction, ctx: HandlerContext, planned: readonly FeedSummary[], actor: Actor, signal: AbortSignal) {
  const t = ctx.t;
  const guildId = ctx.guildId();
  const auth = await ctx.auth();
  const listed = await listedIds(ctx, auth);
  const goneBefore = listed ? planned.filter((feed) => !listed.has(feed.id)) : [];
  const feedByKey = new Map(planned.map((feed) => [String(feed.id), feed]));

  const deleteOne = async (feed: FeedSummary): Promise<StepResult> => {
    let result: DeleteFeedResponse;
    try {
      result = await ctx.services.api.deleteFeed(auth, feed.id);
    } catch (error) {
      if (error instanceof NotFoundError) return 'gone';
      throw error;
    }
    if (!result.ok) {
      const said = quotedApiText(t, result.mensaje);
      throw new StepRefusedError('bulkDelete.reason.notConfirmed', { detail: said ? ` ${said}` : '' });
    }
    ctx.services.audit.record(guildId, { kind: 'feedDeleted', actor, feed }, interaction.locale);
    return 'deleted';
  };
  const steps: BatchStep<StepResult>[] = planned
    .filter((feed) => !goneBefore.includes(feed))
    .map((feed) => ({ key: String(feed.id), label: `#${feed.id}`, run: () => deleteOne(feed) }));

  const report = await runBatch(batchHandler(ctx), {
    steps,
    render: (progress) => ({
      embeds: [batchProgressEmbed(t, progress, t('bulkDelete.progress.title'), 'bulkDelete.progress.count')],
      components: [],
    }),
    deadline: tokenDeadline(interaction),
    signal,
  });
  const feedOf = (step: BatchStep<StepResult>) => feedByKey.get(step.key)!;
  const outcome: BulkDeleteOutcome = {
    deleted: report.done.filter(({ result }) => result === 'deleted').map(({ step }) => feedOf(step)),
    gone: [...goneBefore, ...report.done.filter(({ result }) => result === 'gone').map(({ step }) => feedOf(step))],
    failed: report.refused.map(({ step, error }) => ({ feed: feedOf(step), reason: refusalReason(ctx, error) })),
    notAttempted: report.notAttempted.map(feedOf),
    ...(report.stop ? { stopReason: stopReason(ctx, report.stop) } : {}),
  };
  await ctx.respond.send({ embeds: [bulkDeleteReportEmbed(t, outcome)], components: [] });
}

/** Why one feed was not deleted: the step's own reason, or the API's refusal explained. */
function refusalReason(ctx: HandlerContext, error: unknown): string {
  if (error instanceof StepRefusedError) return ctx.t(error.reasonKey, error.vars);
  return explain(error, { t: ctx.t }).message;
}

/** Why the batch ended early, in the words import uses. An error is logged with the reference the user reads. */
function stopReason(ctx: HandlerContext, stop: BatchStop): string {
  if (stop.reason !== 'error') return batchStopLine(ctx.t, stop);
  const e = explain(stop.error, { t: ctx.t });
  ctx.services.logger[e.level]({ err: stop.error, outcome: e.outcome, ...(e.ref ? { ref: e.ref } : {}) }, 'bulk delete stopped');
  return batchStopLine(ctx.t, stop, e.message);
}
