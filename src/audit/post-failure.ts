/**
 * Why an audit post failed, as the short non-secret reason kept in the guild's settings
 * (`auditFailure.reason`) and shown by `/feedbot audit-channel status`.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';

/** Reasons `status` explains in words; any other one is shown as it is. */
export type KnownFailureReason = 'unknown_channel' | 'missing_access' | 'missing_permissions';

const BY_CODE: Readonly<Record<number, KnownFailureReason>> = {
  10003: 'unknown_channel',
  50001: 'missing_access',
  50013: 'missing_permissions',
};

export function failureReason(error: unknown): string {
  if (error instanceof DiscordAPIError) {
    const code = typeof error.code === 'number' ? error.code : undefined;
    return (code !== undefined ? BY_CODE[code] : undefined) ?? `discord_${code ?? error.status}`;
  }
  if (error instanceof HTTPError) return `discord_${error.status}`;
  if (error instanceof RateLimitError) return 'rate_limited';
  return 'unreachable';
}

/**
 * A refusal the next post to the same channel would get too: the channel is gone, or the bot may
 * not see it or post there (unknown_channel, missing_access, missing_permissions all come as 403
 * or 404; 401 is a token Discord no longer takes). Discord counts each of these as an invalid
 * request and bans the IP past 10,000 in 10 minutes, so they are not worth repeating for the
 * events queued behind. Anything else (a 5xx, a body Discord refused, no answer) may pass next time.
 */
export function isPermanentFailure(error: unknown): boolean {
  return error instanceof DiscordAPIError && (error.status === 401 || error.status === 403 || error.status === 404);
}

/** Discord's status and code of a refusal, or a transport failure's system code: all the log line says of it. */
export function failureDetail(error: unknown): { status?: number; code?: number; cause?: string } {
  if (error instanceof DiscordAPIError) return { status: error.status, ...(typeof error.code === 'number' ? { code: error.code } : {}) };
  if (error instanceof HTTPError) return { status: error.status };
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code)) return { cause: code };
  return error instanceof Error ? { cause: error.name } : {};
}
