/**
 * Runs a list of API calls one by one for a single interaction (import's creates, bulk delete's
 * deletes), editing ONE progress message as it goes and staying inside the feed API's request
 * budget and the interaction token's lifetime.
 *
 * - Steps run in order; each does one API call (plus, at most, the checks it needs to be safe).
 * - When the budget is spent (the local gate refuses, or the API answers 429) the runner waits
 *   for the reset, says so in the progress message, and runs the same step again. A step is
 *   therefore run again after a refusal: it must be safe to repeat (a refused call sent nothing).
 * - When the reset (or the next step) would end after the deadline, it stops cleanly: the caller
 *   gets what was done, refused and not attempted, and still has time for the final edit.
 * - A refusal of one step (400, 404, or a StepRefusedError the step throws) is recorded and the
 *   batch goes on; anything else (401, 403, unreachable API, a bug) stops the batch with it.
 *
 * Progress edits go through the responder (deferUpdate/update then editReply on the
 * interaction's webhook), so they work in gateway and HTTP-interactions modes alike, and they are
 * throttled: at most one per `minEditIntervalMs`, plus one whenever the runner starts waiting.
 *
 * Usage, in a button handler whose message becomes the progress message:
 *
 *   const report = await runBatch(batchHandler(ctx), {
 *     steps: feeds.map((f) => ({ key: String(f.id), label: `#${f.id}`, run: () => ctx.call((api, auth) => api.deleteFeed(auth, f.id)) })),
 *     render: (p) => ({ embeds: [batchProgressEmbed(ctx.t, p, title, 'bulkDelete.progress')], components: [] }),
 *     deadline: tokenDeadline(interaction),
 *   });
 *   await ctx.respond.send(finalReport(report)); // the caller's final edit
 */
import type { Interaction } from 'discord.js';
import { BadRequestError, NotFoundError, RateGateRefusalError, RateLimitedError, UnauthorizedError } from '../api/errors.js';
import { noticeRejectedKey, type KeyNoticeServices } from '../audit/key-stopped.js';
import type { ReplyPayload } from '../interactions/responder.js';
import type { MessageKey, Vars } from '../i18n/index.js';
import type { Logger } from '../logger.js';

/** One unit of work: a single API call. */
export interface BatchStep<R = unknown> {
  /** Stable and unique within the batch (a feed id, `cuenta→canal`): for logs and reports. */
  key: string;
  /** What the report shows for this step (already localized or plain data such as an account name). */
  label: string;
  /** The call. May run again after a rate-limit wait: a refused call sent nothing, but a step that did more must remember it. */
  run(): Promise<R>;
}

/**
 * Thrown by a step to refuse itself (record and go on) for a reason of its own, e.g. "the API did
 * not answer and the feed is not there". The reason is a catalogue key so the report is localized.
 */
export class StepRefusedError extends Error {
  constructor(
    readonly reasonKey: MessageKey,
    readonly vars: Vars = {},
    options?: { cause?: unknown },
  ) {
    super(reasonKey, options);
    this.name = new.target.name;
  }
}

/** What the progress renderer is told each time the message is edited. */
export interface BatchProgress {
  total: number;
  /** Steps that succeeded so far. */
  done: number;
  /** Steps refused so far (recorded, the batch went on). */
  refused: number;
  /** Set while waiting for the request budget to reset. */
  waitingUntil?: Date;
}

export type BatchStop =
  /** The deadline came first; `resetAt` when it was a budget wait that would have ended past it. */
  | { reason: 'deadline'; resetAt?: Date }
  /** An error that would fail every later step too (401, 403, unreachable API, a bug). */
  | { reason: 'error'; error: unknown }
  /** The bot is stopping (the signal was aborted). */
  | { reason: 'aborted' };

export interface BatchReport<R = unknown> {
  done: { step: BatchStep<R>; result: R }[];
  refused: { step: BatchStep<R>; error: unknown }[];
  /** Steps never run (after a stop), in their original order. */
  notAttempted: BatchStep<R>[];
  /** Why the batch ended early; absent when every step was run. */
  stop?: BatchStop;
  /** How many progress edits were sent, and the time spent waiting for budget resets (ms). */
  stats: { edits: number; waitedMs: number; startedAt: number; endedAt: number };
}

/** How a step's failure is treated. */
type FailureClass = 'refused' | 'stop';

/** 400/404 and a step's own refusal concern that step only; everything else stops the batch. */
export function defaultClassify(error: unknown): FailureClass {
  if (error instanceof StepRefusedError || error instanceof BadRequestError || error instanceof NotFoundError) return 'refused';
  return 'stop';
}

/** What the runner needs from its surroundings: a clock, the progress message, a logger. */
export interface BatchEnvironment {
  now(): number;
  /** Edits the progress message (the first call may be the interaction's answer). */
  edit(payload: ReplyPayload): Promise<void>;
  logger: Logger;
  /** Resolves after `ms` (or early when `signal` aborts). Injected by unit tests. */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
}

interface BatchOptions<R> {
  steps: readonly BatchStep<R>[];
  /** The progress message for the current state. */
  render(progress: BatchProgress): ReplyPayload;
  /** Last moment (ms since epoch) a step may start or a wait may end; see `tokenDeadline`. */
  deadline: number;
  /** Minimum time between two progress edits. Default 1000 ms (Discord limits message edits). */
  minEditIntervalMs?: number;
  /** Edit before the first step (default true): shows "0 of N" at once; false when the caller just showed something. */
  editAtStart?: boolean;
  classify?(error: unknown): FailureClass;
  /** Ends waits and stops the batch before the next step. */
  signal?: AbortSignal;
}

/** Discord's interaction tokens (editReply, follow-ups) work for 15 minutes after the interaction's creation. */
export const INTERACTION_TOKEN_LIFETIME_MS = 15 * 60_000;
/** Default room kept before the token dies: a step in flight (its request deadline) and the final edit. */
const DEFAULT_DEADLINE_MARGIN_MS = 45_000;

/** The latest moment to start a step or end a wait for `interaction`, keeping `marginMs` for the step and the final edit. */
export function tokenDeadline(interaction: Pick<Interaction, 'createdTimestamp'>, marginMs = DEFAULT_DEADLINE_MARGIN_MS): number {
  return interaction.createdTimestamp + INTERACTION_TOKEN_LIFETIME_MS - marginMs;
}

/** A batch run for one server's interaction: its environment, and the server whose key a 401 stops. */
export interface BatchHandler extends BatchEnvironment {
  services: KeyNoticeServices;
  guildId: string | null;
  /** The interaction's locale, for the audit post a 401 leads to. */
  locale?: string;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A wait shorter than this after a refusal whose reset is already past: the gate's clock may lag ours. */
const MIN_WAIT_MS = 250;

/** Runs `steps` for a server's interaction. The caller sends the final report itself. */
export async function runBatch<R>(handler: BatchHandler, options: BatchOptions<R>): Promise<BatchReport<R>> {
  const report = await runSteps(handler, options);
  // A 401 ends the batch here instead of reaching the router, which would tell the audit channel (once per key).
  if (report.stop?.reason === 'error' && report.stop.error instanceof UnauthorizedError && handler.guildId) {
    await noticeRejectedKey(handler.services, handler.guildId, handler.locale);
  }
  return report;
}

/** The runner itself, over any environment (unit tests give it a fake clock and message). */
export async function runSteps<R>(env: BatchEnvironment, options: BatchOptions<R>): Promise<BatchReport<R>> {
  const classify = options.classify ?? defaultClassify;
  const sleep = env.sleep ?? defaultSleep;
  const interval = options.minEditIntervalMs ?? 1_000;
  const startedAt = env.now();
  const report: BatchReport<R> = { done: [], refused: [], notAttempted: [], stats: { edits: 0, waitedMs: 0, startedAt, endedAt: startedAt } };
  const total = options.steps.length;
  // Without an edit at the start, the caller has just shown something: the interval counts from now.
  let lastEditAt = startedAt;

  const progress = (waitingUntil?: Date): BatchProgress => ({
    total,
    done: report.done.length,
    refused: report.refused.length,
    ...(waitingUntil ? { waitingUntil } : {}),
  });
  // A failed progress edit must not cost the batch: the final edit (the caller's) may still land.
  const edit = async (p: BatchProgress): Promise<void> => {
    lastEditAt = env.now();
    report.stats.edits += 1;
    try {
      await env.edit(options.render(p));
    } catch (error) {
      env.logger.warn({ err: error }, 'could not edit a batch progress message');
    }
  };

  if (options.editAtStart ?? true) await edit(progress());

  let index = 0;
  while (index < total) {
    const step = options.steps[index]!;
    if (options.signal?.aborted) {
      report.stop = { reason: 'aborted' };
      break;
    }
    if (env.now() > options.deadline) {
      report.stop = { reason: 'deadline' };
      break;
    }
    try {
      const result = await step.run();
      report.done.push({ step, result });
      index += 1;
    } catch (error) {
      if (error instanceof RateGateRefusalError || error instanceof RateLimitedError) {
        const resetAt = error.resetAt;
        if (resetAt.getTime() > options.deadline) {
          report.stop = { reason: 'deadline', resetAt };
          break;
        }
        await edit(progress(resetAt));
        const waitMs = Math.max(MIN_WAIT_MS, resetAt.getTime() - env.now());
        const before = env.now();
        env.logger.info({ step: step.key, waitMs, resetAt: resetAt.toISOString() }, 'batch waits for the feed API budget to reset');
        await sleep(waitMs, options.signal);
        report.stats.waitedMs += env.now() - before;
        continue; // the same step again
      }
      if (classify(error) === 'refused') {
        report.refused.push({ step, error });
        index += 1;
      } else {
        report.stop = { reason: 'error', error };
        break;
      }
    }
    if (index < total && env.now() - lastEditAt >= interval) await edit(progress());
  }

  report.notAttempted = options.steps.slice(index);
  report.stats.endedAt = env.now();
  return report;
}
