/**
 * Helpers of the export/import stories (transfer.test.ts): an export file written by hand, the
 * key's budget spent by another client of the key, and the edits of one message as they happen.
 */
import type { Agent } from 'undici';
import { request } from 'undici';
import type { APIMessage } from 'discord-api-types/v10';
import { RATE_LIMIT_REMAINING_HEADER, RATE_LIMIT_RESET_HEADER } from '@feedbot/feed-api-contract';
import type { DiscordEmulator, MessageEvent } from '@feedbot/discord-emulator';
import type { StoryGuild } from './story-kit.js';

/** docs/export-format.md, version 1. */
export interface ExportDoc {
  format: 'feedbot-feeds';
  version: 1;
  exportedAt: string;
  guildId: string;
  feeds: { id: number; cuenta: string; canal: string; tipos: string[]; filtros: number; estado: string }[];
}

/** An export of `rows` (posts only, no filters, active) as /feed export writes it. */
export function exportFile(g: StoryGuild, rows: readonly { cuenta: string; canal: string }[]): string {
  const doc: ExportDoc = {
    format: 'feedbot-feeds',
    version: 1,
    exportedAt: new Date().toISOString(),
    guildId: g.id,
    feeds: rows.map((r, i) => ({ id: i + 1, cuenta: r.cuenta, canal: r.canal, tipos: ['post'], filtros: 0, estado: 'activo' })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export interface Spent {
  spent: number;
  tookMs: number;
  /** When the first of them was sent (it opened the window when none was open) and when the window ends, per the sandbox. */
  windowStartMs: number;
  resetAtMs: number;
}

/**
 * Spends the key's budget with GET /stats, one after another, until the sandbox says `left`
 * requests remain in the window: what the key's owner's other tools would do.
 */
export async function spendBudget(apiUrl: string, agent: Agent, key: string, left: number): Promise<Spent> {
  const windowStartMs = Date.now();
  for (let spent = 1; spent <= 200; spent++) {
    const res = await request(`${apiUrl}/stats`, { headers: { authorization: `Bearer ${key}` }, dispatcher: agent });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`spending the budget: GET /stats answered ${res.statusCode}`);
    const remaining = Number(res.headers[RATE_LIMIT_REMAINING_HEADER.toLowerCase()]);
    if (remaining <= left) {
      if (remaining !== left) throw new Error(`the window had fewer than ${left} requests left`);
      const resetAtMs = Number(res.headers[RATE_LIMIT_RESET_HEADER.toLowerCase()]) * 1000;
      return { spent, tookMs: Date.now() - windowStartMs, windowStartMs, resetAtMs };
    }
  }
  throw new Error('the budget never ran low');
}

export interface MessageWatch {
  /** Every edit of the message, when the emulator stored it. */
  edits: { at: number; message: APIMessage }[];
  stop(): void;
}

/** Records each edit of one message (a progress message) as the emulator applies it. */
export function watchMessage(emulator: DiscordEmulator, messageId: string): MessageWatch {
  const edits: MessageWatch['edits'] = [];
  const listener = (e: MessageEvent) => {
    if (e.action === 'update' && e.message.id === messageId) edits.push({ at: Date.now(), message: e.message });
  };
  emulator.events.on('message', listener);
  return { edits, stop: () => emulator.events.off('message', listener) };
}
