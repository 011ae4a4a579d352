/**
 * Test doubles for a discord.js bot's unit tests, without an emulator: raw interaction payloads,
 * a REST recorder to plug into the client, and the emulator's snowflake generator. See ../../README.md.
 */
export { dispatchInteraction } from './dispatch.js';
export { fakeMessage, type FakeMessageOptions } from './messages.js';
export {
  DEFAULT_PAYLOAD_DEFAULTS,
  interactionPayloads,
  type InteractionPayloads,
  type Invoker,
  type OptionValue,
  type PayloadDefaults,
} from './payloads.js';
export { RestRecorder, type RecordedRequest, type RestRecorderOptions } from './rest-recorder.js';
export { snowflake, snowflakeTimestamp } from '../snowflake.js';
