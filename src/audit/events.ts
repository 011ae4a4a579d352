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
  | { kind: 'channelDeleted'; channelId: string; channelName?: string; feeds: readonly FeedSummary[] };

export interface AuditTrail {
  /**
   * Queues the event for the guild's audit channel (if one is set). Never throws and never makes
   * the caller wait; `locale` is the language of the interaction that caused it, the guild's
   * preferred locale being used when known.
   */
  record(guildId: string, event: AuditEvent, locale?: string): void;
  /** Resolves when every queued post has been attempted (tests, shutdown). */
  flush(): Promise<void>;
}
