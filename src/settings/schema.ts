/**
 * What feedbot keeps per guild besides its API key: the audit channel, the feed-manager roles and
 * the feed-health threshold. Not secret, so stored in the clear, beside the key on the same backend.
 */
import { z } from 'zod';

const Snowflake = z.string().regex(/^\d{1,32}$/, 'must be a Discord snowflake');

/** Discord allows 250 roles in a guild; 25 manager roles is plenty and keeps the list readable. */
export const MAX_MANAGER_ROLES = 25;
export const DEFAULT_STALE_AFTER_DAYS = 7;
export const MAX_STALE_AFTER_DAYS = 365;

export const GuildSettingsSchema = z.object({
  v: z.literal(1),
  /** Where audit posts go; absent when the audit channel is off. */
  auditChannelId: Snowflake.optional(),
  /**
   * The Discord locale of the admin who chose the audit channel: the channel's language when the
   * server has none of its own (only Community servers choose one), whoever caused an event.
   */
  auditLocale: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/).optional(),
  /**
   * When the audit posts were turned on (ms): an event recorded before then is not posted. Its
   * post reads the settings a moment after the event, and by then an admin may have just chosen
   * the channel (on another replica). Moving the posts to another channel keeps this time.
   */
  auditSince: z.number().int().nonnegative().optional(),
  /** The last audit post that could not be delivered (reported once by `/feedbot audit-channel status`). */
  auditFailure: z
    .object({
      at: z.number().int().nonnegative(),
      /** A short, non-secret reason: `missing_access`, `unknown_channel`, `missing_permissions`… */
      reason: z.string().min(1).max(100),
      channelId: Snowflake,
      reported: z.boolean().default(false),
      /** The reference in the failure's log line, so an admin can hand it to the operator. */
      ref: z.string().regex(/^[A-Z0-9]{1,16}$/).optional(),
    })
    .optional(),
  managerRoleIds: z.array(Snowflake).max(MAX_MANAGER_ROLES).default([]),
  staleAfterDays: z.number().int().min(1).max(MAX_STALE_AFTER_DAYS).optional(),
  /** Fingerprint of the key whose "stopped working" audit post was made (once per key). */
  keyStoppedNotified: z.string().max(64).optional(),
  /** Channels already reported as deleted (HTTP mode notices them late; reported once each). */
  reportedDeletedChannels: z.array(Snowflake).max(500).default([]),
});

export type GuildSettings = z.infer<typeof GuildSettingsSchema>;

export const defaultSettings = (): GuildSettings => ({ v: 1, managerRoleIds: [], reportedDeletedChannels: [] });
