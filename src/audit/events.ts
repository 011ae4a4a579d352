/**
 * What the audit channel is told about. Handlers record an event and go on: posting it is the
 * audit trail's job (src/audit/), and a post that fails never fails the command that caused it.
 */
export interface FeedSummary {
  id: number;
  cuenta?: string;
  canalId?: string;
  tipos?: readonly string[];
}

/** Who did it, and which of their roles allowed it when that was a feed-manager role. */
export interface Actor {
  userId: string;
  /** The feed-manager role that allowed the action; absent when Manage Server did. */
  viaRoleId?: string;
}

export type AuditEvent =
  | { kind: 'feedCreated'; actor: Actor; feed: FeedSummary }
  | { kind: 'feedDeleted'; actor: Actor; feed: FeedSummary }
  | { kind: 'keySet'; actor: Actor; masked: string; replaced: boolean }
  | { kind: 'keyRemoved'; actor: Actor; masked: string | undefined }
  /** The first 401 after a key stopped working (regenerated or revoked): posted once per key. */
  | { kind: 'keyStoppedWorking'; masked: string }
  /** A channel feeds forward into was deleted in Discord. */
  | { kind: 'channelDeleted'; channelId: string; channelName?: string; feeds: readonly FeedSummary[] }
  /** `/feedbot forget`: the last post before the server's key and settings (this channel among them) are deleted. */
  | { kind: 'guildForgotten'; actor: Actor }
  // ─── Found by the health sweeps and the weekly digest (src/health/sweep/), not by a command ───
  /** The key is refused a scope it needs (403). */
  | { kind: 'keyScopeMissing'; masked: string; scope: string }
  /** A feed stopped forwarding (its state is no longer `activo`), or forwards again. */
  | { kind: 'feedInactive'; feed: FeedSummary; estado: string }
  | { kind: 'feedActiveAgain'; feed: FeedSummary }
  /** An active feed has not posted for longer than the server's threshold, or posts again. */
  | { kind: 'feedQuiet'; feed: FeedSummary; days: number }
  | { kind: 'feedPostsAgain'; feed: FeedSummary }
  | { kind: 'weeklyDigest'; digest: DigestSummary };

/** The weekly digest's content (src/health/sweep/digest.ts), from GET /stats and GET /feeds. */
export interface DigestSummary {
  postsThisWeek: number;
  /** `cuentaMasActiva`: the most active account this week; null when none. */
  mostActive: string | null;
  active: number;
  paused: number;
  /** Feeds with a warning, the first few by id, each with its warnings in words. */
  warned: readonly { feed: FeedSummary; warnings: readonly string[] }[];
  warnedTotal: number;
  created: number;
  deleted: number;
}

export interface AuditTrail {
  /**
   * Queues the event for the guild's audit channel (if one is set). Never throws and never makes
   * the caller wait; `locale` is the language of the interaction that caused it, the guild's
   * preferred locale being used when known.
   */
  record(guildId: string, event: AuditEvent, locale?: string): void;
  /** Resolves when every queued post (of `guildId` alone when given) has been attempted (tests, shutdown, `/feedbot forget`). */
  flush(guildId?: string): Promise<void>;
}
