/**
 * Real discord.js objects without Discord: the bot's own client with its REST calls recorded by
 * the emulator package's RestRecorder, and interactions built from raw payloads by the package's
 * builders, bound to this suite's ids.
 */
import type { APIInteraction, APIMessage } from 'discord-api-types/v10';
import { Events, PermissionFlagsBits, type Client, type ClientOptions, type Interaction } from 'discord.js';
import { dispatchInteraction, fakeMessage as webhookMessage, interactionPayloads, RestRecorder, type RecordedRequest } from '@feedbot/discord-emulator/testing';
import { createDiscordClient } from '../../src/bot/discord-client.js';

export { snowflake, type Invoker, type OptionValue } from '@feedbot/discord-emulator/testing';

export const APP_ID = '1200000000000000001';
export const GUILD_ID = '1100000000000000001';
export const OTHER_GUILD_ID = '1100000000000000002';
export const CHANNEL_ID = '1300000000000000001';
export const ADMIN_ID = '1400000000000000001';
export const MEMBER_ID = '1400000000000000002';

export const ADMIN_PERMS = String(PermissionFlagsBits.ManageGuild | PermissionFlagsBits.SendMessages);
export const MEMBER_PERMS = String(PermissionFlagsBits.SendMessages | PermissionFlagsBits.ViewChannel);
export const ADMINISTRATOR_PERMS = String(PermissionFlagsBits.Administrator);

/** One REST call of the bot: method, path after /api/v10 (@original decoded), query, body, Date.now(). */
export type CapturedCall = RecordedRequest;

/** Raw payloads from ADMIN_ID in GUILD_ID's #general, in English, unless the invoker says otherwise. */
export const { chatInput, autocomplete, buttonPress, modalSubmit } = interactionPayloads({
  applicationId: APP_ID,
  guildId: GUILD_ID,
  channel: { id: CHANNEL_ID, name: 'general' },
  userId: ADMIN_ID,
  permissions: ADMIN_PERMS,
});

/** The message Discord would return for a webhook call carrying `body`. */
export function fakeMessage(body: Record<string, unknown> | undefined, flags = 0): APIMessage {
  return webhookMessage(body, { applicationId: APP_ID, channelId: CHANNEL_ID, flags });
}

export interface TestDiscord {
  client: Client;
  calls: CapturedCall[];
  /** Dispatches a raw interaction through discord.js and returns the Interaction it built. */
  dispatch(raw: APIInteraction): Interaction;
  /** Calls to the interaction callback endpoint. */
  callbacks(): CapturedCall[];
  /** Edits of the original response. */
  edits(): CapturedCall[];
  followUps(): CapturedCall[];
  /** Per-call latency of Discord itself (ms). */
  latencyMs: number;
  /** The REST double: its `respond` makes Discord answer some calls with an error. */
  recorder: RestRecorder;
  destroy(): Promise<void>;
}

type MakeRequest = NonNullable<NonNullable<ClientOptions['rest']>['makeRequest']>;

export function createTestDiscord(opts: { latencyMs?: number; wrapRest?: (recorded: MakeRequest) => MakeRequest } = {}): TestDiscord {
  const recorder = new RestRecorder({ api: 'https://discord.test/api', latencyMs: opts.latencyMs ?? 0, channelId: CHANNEL_ID });
  const recorded = recorder.rest.makeRequest!;
  const client = createDiscordClient({ rest: { ...recorder.rest, makeRequest: opts.wrapRest ? opts.wrapRest(recorded) : recorded } });
  client.rest.setToken('test-token-not-real');
  let last: Interaction | undefined;
  client.on(Events.InteractionCreate, (i) => {
    last = i;
  });
  return {
    client,
    calls: recorder.calls,
    dispatch(raw) {
      last = undefined;
      dispatchInteraction(client, raw);
      if (!last) throw new Error('discord.js did not emit the interaction');
      return last;
    },
    recorder,
    callbacks: () => recorder.callbacks(),
    edits: () => recorder.edits(),
    followUps: () => recorder.followUps(),
    get latencyMs() {
      return recorder.latencyMs;
    },
    set latencyMs(v: number) {
      recorder.latencyMs = v;
    },
    destroy: () => client.destroy(),
  };
}
