/** What the sweeps and the digest report to logs and metrics (src/ops/metrics.ts), without knowing either. */
import { Observers } from '../../observers.js';
import type { SweepResult } from './record.js';

export type SweepChangeKind = 'key_unauthorized' | 'scope_missing' | 'feed_inactive' | 'feed_active' | 'feed_quiet' | 'feed_posting' | 'channel_gone';

export type SweepReport =
  | { type: 'sweep'; guildId: string; result: SweepResult; changes: number; durationMs: number }
  | { type: 'change'; guildId: string; kind: SweepChangeKind }
  /** One request sent to the feed API on the sweeps' or the digest's behalf. */
  | { type: 'upstream'; guildId: string; route: 'listFeeds' | 'getStats' }
  | { type: 'digest'; guildId: string; week: string; lateMs: number };

export const sweepReports = (): Observers<SweepReport> => new Observers<SweepReport>('health sweep');
