/**
 * What every fault test checks, whatever the fault: what the user finally sees of one
 * interaction (and whether it is private), its single log line, the requests that reached the
 * feed API, and that nothing escaped as an unhandled rejection or uncaught exception.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { MessageFlags } from 'discord.js';
import type { APIInteraction } from 'discord-api-types/v10';
import type { BotHarness } from '../helpers/bot.js';
import { langFor, translator, type Translator } from '../../src/i18n/index.js';

export const EPHEMERAL = MessageFlags.Ephemeral;
export const LOCALES = ['en-US', 'es-ES'] as const;

/** The catalogue the bot answers a user of `locale` from. */
export const catalogueFor = (locale: string): Translator => translator(langFor(locale));

/** Pino's numeric levels. */
export const LEVEL = { info: 30, warn: 40, error: 50 } as const;
export type Level = keyof typeof LEVEL;

/**
 * Records unhandled rejections and uncaught exceptions for the whole file; each test then asserts
 * none happened during it. `uncaughtExceptionMonitor` observes without changing what Node does.
 */
export function watchForCrashes(): void {
  const seen: unknown[] = [];
  const onRejection = (reason: unknown) => void seen.push(reason);
  const onException = (error: unknown) => void seen.push(error);
  beforeAll(() => {
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtExceptionMonitor', onException);
  });
  afterEach(async () => {
    // Let rejections of promises dropped during the test surface before looking.
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.splice(0), 'unhandled rejections / uncaught exceptions').toEqual([]);
  });
  afterAll(() => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtExceptionMonitor', onException);
  });
}

/** The single `interaction` log line of one interaction (asserting there is exactly one). */
export function interactionLine(h: BotHarness, raw: APIInteraction): Record<string, unknown> {
  const lines = h.logs.filter((l) => l.msg === 'interaction' && l.interactionId === raw.id);
  expect(lines, `interaction log lines of ${raw.id}`).toHaveLength(1);
  return lines[0]!;
}

export interface Visible {
  /** How the last thing the user saw got there. */
  via: 'reply' | 'update' | 'edit' | 'followUp' | 'choices' | 'modal' | 'nothing';
  /** The first embed's description, else its title, else the content. */
  text: string | undefined;
  private: boolean;
  choices?: unknown[];
  /** Messages Discord accepted that show anything, public ones included. */
  messages: { text: string | undefined; private: boolean }[];
  /** A public "thinking…" placeholder that was neither edited nor deleted. */
  publicPlaceholderLeft: boolean;
  /** Acknowledgements (callbacks) Discord accepted. */
  acknowledgements: number;
}

type Data = { flags?: number; content?: string; embeds?: { title?: string; description?: string }[]; choices?: unknown[] };
const textOf = (d: Data | undefined) => d?.embeds?.[0]?.description ?? d?.embeds?.[0]?.title ?? d?.content;

/**
 * Replays what Discord accepted for one interaction (calls carry its token) into what the user
 * sees. `sourcePrivate`: for a button, whether the message it sits on is ephemeral (an update
 * keeps that).
 */
export function visibleAnswer(h: BotHarness, raw: APIInteraction, sourcePrivate = false): Visible {
  const calls = h.discord.calls.filter((c) => c.path.includes(raw.token));
  const out: Visible = { via: 'nothing', text: undefined, private: true, messages: [], publicPlaceholderLeft: false, acknowledgements: 0 };
  let original: { text: string | undefined; private: boolean } | undefined;
  let placeholder: { private: boolean; open: boolean } | undefined;
  const followUps: { text: string | undefined; private: boolean }[] = [];
  const show = (via: Visible['via'], data: Data | undefined, isPrivate: boolean) => {
    Object.assign(out, { via, text: textOf(data), private: isPrivate });
    return { text: textOf(data), private: isPrivate };
  };
  for (const call of calls) {
    const body = call.body as { type?: number; data?: Data } & Data;
    if (call.path.endsWith('/callback')) {
      out.acknowledgements += 1;
      const type = body.type;
      if (type === 4) original = show('reply', body.data, ((body.data?.flags ?? 0) & EPHEMERAL) !== 0);
      else if (type === 7) original = show('update', body.data, sourcePrivate);
      else if (type === 5) placeholder = { private: ((body.data?.flags ?? 0) & EPHEMERAL) !== 0, open: true };
      else if (type === 6) placeholder = { private: sourcePrivate, open: false };
      else if (type === 8) Object.assign(out, { via: 'choices', text: undefined, private: true, choices: body.data?.choices ?? [] });
      else if (type === 9) Object.assign(out, { via: 'modal', text: undefined, private: true });
    } else if (call.method === 'PATCH') {
      if (placeholder) placeholder.open = false;
      original = show('edit', body, placeholder?.private ?? sourcePrivate);
    } else if (call.method === 'DELETE') {
      if (placeholder) placeholder.open = false;
      original = undefined;
    } else if (call.method === 'POST') {
      followUps.push(show('followUp', body, ((body.flags ?? 0) & EPHEMERAL) !== 0));
    }
  }
  out.messages = [...(original ? [original] : []), ...followUps];
  out.publicPlaceholderLeft = placeholder?.open === true && !placeholder.private;
  return out;
}

/** Requests the feed API received since the test enabled (or last cleared) the MockAgent's call history. */
export function apiRequests(h: BotHarness, method?: string, path?: string): number {
  const calls = h.agent.getCallHistory()?.calls() ?? [];
  return calls.filter((c) => {
    const url = new URL(c.fullUrl);
    return (!method || c.method === method) && (!path || `${url.pathname}${url.search}` === path);
  }).length;
}
