/**
 * The one place that turns any failure into what the user reads and what the operator logs.
 * Users get a localized, ephemeral explanation and never a stack trace; unexpected failures get a
 * short reference id that is also in the single log line for the interaction.
 */
import { DiscordAPIError, DiscordjsTypeError, HTTPError, RateLimitError, TimestampStyles, time } from 'discord.js';
import * as api from '../api/errors.js';
import { KeyStoreError } from '../keys/store.js';
import type { Translator } from '../i18n/index.js';
import { MalformedInteractionError, MissingPermissionError, UnconfirmedWriteError, UserError } from './errors.js';
import { quotedApiText } from '../render/api-text.js';
import { newReference } from '../reference.js';

export interface Explanation {
  message: string;
  /** Short outcome for the log line, e.g. `user_error`, `api_401`, `rate_limited_local`, `error`. */
  outcome: string;
  level: 'info' | 'warn' | 'error';
  /** Present when the operator needs to find this failure in the logs. */
  ref?: string;
  /** Set when Discord refused or failed an answer: the failure is Discord's, not the handler's. */
  discord?: DiscordRefusal;
  /** Why a dependency could not be reached, logged whatever the level (`err` is only logged at error). */
  detail?: FailureDetail;
}

export interface FailureDetail {
  /** The transport's code: ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET, DEPTH_ZERO_SELF_SIGNED_CERT… */
  cause?: string;
  /** The attempt's time-out that expired. */
  timeoutMs?: number;
}

/** What the log line says about a call Discord refused or failed. */
export interface DiscordRefusal {
  /** Discord's HTTP status (429 for a rate limit discord.js gave up waiting on). */
  status: number;
  /** Discord's JSON error code (10062, 40060…), when it sent one. */
  code?: number;
  /**
   * The interaction cannot be answered by us any more: it expired, or it was answered elsewhere
   * (another instance, a duplicate dispatch). Nothing to repair in our code: logged at warn.
   */
  gone: boolean;
}

/** 10062 Unknown interaction, 40060 already acknowledged, 50027 Invalid Webhook Token (the 15-minute token expired). */
const GONE_CODES: ReadonlySet<number | string> = new Set([10062, 40060, 50027]);

/** Discord's refusal or failure behind `error` (discord.js' REST errors), or undefined when it is not one. */
export function discordRefusal(error: unknown): DiscordRefusal | undefined {
  if (error instanceof DiscordAPIError) {
    const code = typeof error.code === 'number' ? error.code : undefined;
    return { status: error.status, ...(code !== undefined ? { code } : {}), gone: GONE_CODES.has(error.code) };
  }
  if (error instanceof HTTPError) return { status: error.status, gone: false };
  if (error instanceof RateLimitError) return { status: 429, gone: false };
  return undefined;
}

/**
 * discord.js's refusal to read an option or form field the payload lacks, or holds with another
 * type: what was delivered is malformed (a forged or truncated payload), not a defect of ours.
 */
// Spelled out: the typings lack one code and misspell another (`ModalSubmitInteractionComponentEmpty`).
const MISSING_FIELD_CODES: ReadonlySet<string> = new Set([
  'CommandInteractionOptionNotFound',
  'CommandInteractionOptionType',
  'CommandInteractionOptionEmpty',
  'CommandInteractionOptionInvalidChannelType',
  'ModalSubmitInteractionFieldNotFound',
  'ModalSubmitInteractionFieldType',
  'ModalSubmitInteractionFieldEmpty',
  'ModalSubmitInteractionFieldInvalidChannelType',
]);

function isMissingField(error: unknown): boolean {
  return error instanceof DiscordjsTypeError && MISSING_FIELD_CODES.has(error.code);
}

interface ExplainContext {
  t: Translator;
}

export function explain(error: unknown, ctx: ExplainContext): Explanation {
  const { t } = ctx;
  const discord = discordRefusal(error);
  if (discord) {
    // Shown only if some answer can still reach the user (the router decides); the ref with it.
    const ref = newReference();
    return { message: t('error.unknown', { ref }), outcome: 'discord_error', level: discord.gone ? 'warn' : 'error', ref, discord };
  }
  if (error instanceof MissingPermissionError) {
    // When the guild has feed-manager roles, the action could have been allowed by one of them too.
    const key = error.managerRolesExist ? 'error.missingPermission.orManager' : 'error.missingPermission';
    return { message: t(key, { action: t(`action.${error.action}`) }), outcome: 'forbidden_member', level: 'info' };
  }
  if (error instanceof UnconfirmedWriteError) {
    // Logged as the API failure it was (outcome, level, reference); told as what the user must do.
    const why = explain(error.apiFailure, ctx);
    const told = t(error.key, error.vars);
    return { ...why, message: why.ref ? `${told} ${t('error.reference', { ref: why.ref })}` : told };
  }
  if (error instanceof MalformedInteractionError || isMissingField(error)) {
    return { message: t('error.malformedInteraction'), outcome: 'malformed_interaction', level: 'warn' };
  }
  if (error instanceof UserError) {
    return { message: t(error.key, error.vars), outcome: 'user_error', level: 'info' };
  }
  // The API's 429 and the local gate's refusal read the same to users: wait until the reset.
  if (error instanceof api.RateLimitedError || error instanceof api.RateGateRefusalError) {
    const reset = error.resetAt;
    return {
      message: t('error.rateLimited', {
        relative: time(reset, TimestampStyles.RelativeTime),
        time: time(reset, TimestampStyles.LongTime),
      }),
      outcome: error instanceof api.RateGateRefusalError ? 'rate_limited_local' : 'api_429',
      level: 'info',
    };
  }
  if (error instanceof api.BadRequestError) {
    // Our sentence; the API's own words (which field, why) follow only as a quoted detail.
    const detail = quotedApiText(t, error.apiMessage);
    return { message: detail ? `${t('error.badRequest')} ${detail}` : t('error.badRequest'), outcome: 'api_400', level: 'warn' };
  }
  if (error instanceof api.UnauthorizedError) {
    return { message: t('error.unauthorized'), outcome: 'api_401', level: 'info' };
  }
  if (error instanceof api.ForbiddenError && error.planRequired) {
    return { message: t('error.planRequired'), outcome: 'api_403_plan', level: 'info' };
  }
  if (error instanceof api.ForbiddenError) {
    return { message: t('error.forbidden', { scope: error.requiredScope }), outcome: 'api_403', level: 'info' };
  }
  if (error instanceof api.NotFoundError) {
    const feedId = error.feedId;
    return {
      message: feedId !== undefined ? t('error.notFound', { id: feedId }) : t('error.notFound.generic'),
      outcome: 'api_404',
      level: 'info',
    };
  }
  if (error instanceof api.ServerError) {
    return { message: t('error.server', { status: error.status }), outcome: `api_${error.status}`, level: 'warn' };
  }
  if (error instanceof api.FeedApiHttpError) {
    return {
      message: t('error.unexpectedStatus', { status: error.status }),
      outcome: `api_${error.status}`,
      level: 'warn',
    };
  }
  if (error instanceof api.TimeoutError) {
    return { message: t('error.timeout'), outcome: 'api_timeout', level: 'warn', detail: { timeoutMs: error.timeoutMs } };
  }
  if (error instanceof api.ConnectionError) {
    // An untrusted certificate, a refused port and a reset read the same to users, not to operators.
    const detail = error.systemCode !== undefined ? { detail: { cause: error.systemCode } } : {};
    return { message: t('error.connection'), outcome: 'api_unreachable', level: 'warn', ...detail };
  }
  if (error instanceof api.InvalidResponseError) {
    const ref = newReference();
    return { message: t('error.invalidResponse', { ref }), outcome: 'api_invalid_response', level: 'error', ref };
  }
  if (error instanceof KeyStoreError && error.code === 'unreadable') {
    const ref = newReference();
    return { message: t('error.keyUnreadable', { ref }), outcome: 'key_unreadable', level: 'error', ref };
  }
  if (error instanceof api.FeedApiError) {
    const ref = newReference();
    return { message: t('error.unknown', { ref }), outcome: 'api_error', level: 'error', ref };
  }
  const ref = newReference();
  return { message: t('error.unknown', { ref }), outcome: 'error', level: 'error', ref };
}
