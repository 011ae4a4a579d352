/**
 * Test doubles for a discord.js bot's unit tests, without an emulator: raw interaction payloads,
 * a REST recorder to plug into the client, the emulator's snowflake generator, and signed
 * requests as Discord sends them to an Interactions Endpoint. See ../../README.md.
 */
export { dispatchInteraction } from './dispatch.js';
export { fakeMessage, type FakeMessageOptions } from './messages.js';
export {
  DEFAULT_PAYLOAD_DEFAULTS,
  interactionPayloads,
  type AttachmentValue,
  type InteractionPayloads,
  type Invoker,
  type OptionValue,
  type PayloadDefaults,
} from './payloads.js';
export { RestRecorder, type RecordedRequest, type RestRecorderOptions } from './rest-recorder.js';
export { snowflake, snowflakeTimestamp } from '../snowflake.js';
export { signInteraction, verifyInteractionSignature, type SignedInteraction } from './signature.js';
export { InteractionSigner, type PrivateKeyInput } from '../http-delivery/signer.js';
