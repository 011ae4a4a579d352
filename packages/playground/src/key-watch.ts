/**
 * Whether the demo server has an API key now, for the page's banner: the demo sets one at start,
 * and a visitor may remove it (`/apikey remove`, `/feedbot forget`, the settings panel) or set
 * another. After an interaction that may have changed it has been answered, the demo asks the bot
 * itself, as `/apikey status` run by the admin out of the page's sight (the page draws only the
 * conversations it started), and keeps what the answer says.
 */
import type { APIEmbed } from 'discord-api-types/v10';
import { WaitTimeoutError, type DiscordEmulator, type InteractionSnapshot } from '@feedbot/discord-emulator';
import type { Logger } from './log.js';

/** `unknown`: never asked, or the bot could not say. */
export type KeyState = 'set' | 'missing' | 'unknown';

/** The bot's brand colour (src/render/style.ts): its notice that no key is set. */
const BRAND = 0x5865f2;

/** How long an interaction that may change the key is waited for before the bot is asked anyway. */
const ANSWER_WAIT_MS = 30_000;
const STATUS_WAIT_MS = 15_000;

export interface KeyWatchOptions {
  emulator: DiscordEmulator;
  guildId: string;
  /** Who asks `/apikey status`: an admin of the guild. */
  admin: { userId: string; permissions: string };
  /** What the demo knows at start (its own `/apikey set`). */
  initial: KeyState;
  botRunning: () => boolean;
  logger: Logger;
}

export interface KeyWatch {
  state(): KeyState;
  /** Whether the bot has said at some point that there is no key (a later key is set "again"). */
  wasMissing(): boolean;
  close(): void;
}

/**
 * What the answer to `/apikey status` says: its status embed (with fields) when a key is stored,
 * a plain notice in the brand colour when none is; anything else (a refusal, an error) says nothing.
 */
export function keyStateOf(embeds: APIEmbed[]): KeyState {
  const embed = embeds[0];
  if (!embed) return 'unknown';
  if (embed.fields?.length) return 'set';
  if (embed.color === BRAND) return 'missing';
  return 'unknown';
}

/**
 * The custom_ids whose answer may have changed the key (`<command>:<action>:…`): /apikey set's
 * form, the settings panel's key form and its "remove the key?" answer, forget's confirmation.
 * The buttons that only open a form or ask (Set key, Remove key) and the panel's other settings
 * change nothing the banner shows.
 */
const KEY_CHANGING_ACTIONS = /^(apikey:set|feedbot:(set-key-form|set-unkey-answer|forget))(:|$)/;

/**
 * Whether `snapshot` may change the server's key: `/apikey remove`, and the forms and
 * confirmations above. `/apikey set` only opens the form and `/feedbot forget` only asks.
 */
export function mayChangeKey(snapshot: InteractionSnapshot, subcommand: string | undefined): boolean {
  if (snapshot.customId !== undefined) return KEY_CHANGING_ACTIONS.test(snapshot.customId);
  return snapshot.commandName === 'apikey' && subcommand === 'remove';
}

function subcommandOf(payload: unknown): string | undefined {
  const options = (payload as { data?: { options?: Array<{ type?: number; name?: string }> } }).data?.options;
  const sub = options?.find((o) => o.type === 1);
  return sub?.name;
}

export function watchDemoKey(opts: KeyWatchOptions): KeyWatch {
  const { emulator, guildId, logger } = opts;
  let state = opts.initial;
  let missingOnce = opts.initial === 'missing';
  let closed = false;
  /** Interactions already looked at (every change of one is an event). */
  const seen = new Set<string>();
  /** The demo's own `/apikey status` interactions. */
  const ours = new Set<string>();
  let checking: Promise<void> | null = null;
  let again = false;

  async function askBot(): Promise<void> {
    if (!opts.botRunning()) return;
    try {
      const handle = emulator.sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'status', guildId, locale: 'en-US', ...opts.admin });
      ours.add(handle.id);
      const done = await handle.waitForFinal({ timeoutMs: STATUS_WAIT_MS });
      const answer = keyStateOf([...(done.original ? [done.original] : []), ...done.followUps].flatMap((m) => m.embeds ?? []));
      if (answer === 'unknown') logger.debug({ answer: done.original?.embeds?.[0] }, 'the bot did not say whether the demo server has a key');
      else state = answer;
      if (answer === 'missing') missingOnce = true;
    } catch (error) {
      logger.debug({ err: error instanceof Error ? error.message : String(error) }, 'could not ask the bot whether the demo server has a key');
    }
  }

  /** One check at a time; a change during a check asks again once it is over. */
  function check(): void {
    if (closed) return;
    if (checking) {
      again = true;
      return;
    }
    checking = (async () => {
      do {
        again = false;
        await askBot();
      } while (again && !closed);
      checking = null;
    })();
  }

  function consider(snapshot: InteractionSnapshot): void {
    if (ours.has(snapshot.id)) return;
    const handle = emulator.interaction(snapshot.id);
    if (!handle || !mayChangeKey(snapshot, subcommandOf(handle.payload))) return;
    void handle
      .waitForFinal({ timeoutMs: ANSWER_WAIT_MS })
      .catch((error: unknown) => {
        if (!(error instanceof WaitTimeoutError)) throw error;
      })
      .then(check, (error: unknown) => logger.debug({ err: String(error) }, 'waiting for a key command failed'));
  }

  const onInteraction = (snapshot: InteractionSnapshot) => {
    if (closed || snapshot.guildId !== guildId || seen.has(snapshot.id)) return;
    seen.add(snapshot.id);
    // The demo's own question is announced before sendInteraction returns its id: look once it has.
    setImmediate(() => consider(snapshot));
  };
  emulator.events.on('interaction', onInteraction);

  return {
    state: () => state,
    wasMissing: () => missingOnce,
    close() {
      closed = true;
      emulator.events.off('interaction', onInteraction);
    },
  };
}
