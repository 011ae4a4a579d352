/**
 * Real discord.js objects without Discord, from the emulator package's test doubles: raw payloads
 * dispatched through discord.js' own InteractionCreate action, and every REST call the client
 * makes recorded and answered at once. What a benchmark reads is the moment the interaction
 * callback (the acknowledgement) left discord.js: the recorder's clock is performance.now(),
 * read first thing when discord.js hands the request to the transport.
 */
import { PermissionFlagsBits } from 'discord.js';
import { interactionPayloads, RestRecorder, type Invoker as PayloadInvoker, type RecordedRequest } from '@feedbot/discord-emulator/testing';

export { dispatchInteraction as dispatch } from '@feedbot/discord-emulator/testing';

/** An interaction's acknowledgement: `at` (performance.now()) and `raw` (the JSON body, unparsed). */
export type CallbackRecord = RecordedRequest;

/** One client's REST traffic; `callback(id)` waits for an interaction's acknowledgement. */
export class RestCapture extends RestRecorder {
  constructor() {
    super({ clock: () => performance.now() });
  }
}

/** Who sends an interaction (a guild is required here: every scenario acts in one). */
export interface Invoker extends PayloadInvoker {
  guildId: string;
  userId: string;
}

/** The same application, channel and member permissions whatever the scenario. */
export const { chatInput, autocomplete } = interactionPayloads({
  applicationId: '1200000000000000001',
  channel: { id: '1300000000000000001', name: 'general' },
  permissions: String(PermissionFlagsBits.ManageGuild | PermissionFlagsBits.SendMessages),
});
