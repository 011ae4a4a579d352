/**
 * Signed requests as Discord sends them to an Interactions Endpoint, for a bot's tests: sign a
 * body with the emulator's key (`emulator.signer.privateKey`) or any other, then tamper with the
 * body, the timestamp or the signature, or replay it later.
 */
import { ed25519PrivateKey, signRequest, unixSeconds, verifyRequest, type PrivateKeyInput } from '../http-delivery/signer.js';
import { USER_AGENT } from '../http-delivery/transport.js';

export interface SignedInteraction {
  /** `X-Signature-Ed25519`: 128 hex characters. */
  signature: string;
  /** `X-Signature-Timestamp`: unix seconds. */
  timestamp: string;
  /** The exact bytes that were signed (after the timestamp): send these, unchanged. */
  body: string;
  /** The headers Discord sends with it. */
  headers: Record<'content-type' | 'user-agent' | 'x-signature-ed25519' | 'x-signature-timestamp', string>;
}

/**
 * Signs `timestamp + body` with an Ed25519 private key (a KeyObject, 64 hex characters of seed, or
 * PKCS#8 PEM). `body` is sent as is (an object is JSON.stringify'd first); `timestamp` defaults to
 * now, in unix seconds (a number of seconds or a Date is taken too).
 */
export function signInteraction(privateKey: PrivateKeyInput, body: string | object, timestamp: number | string | Date = unixSeconds()): SignedInteraction {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const ts = timestamp instanceof Date ? unixSeconds(timestamp.getTime()) : String(timestamp);
  const signature = signRequest(ed25519PrivateKey(privateKey), ts, text);
  return {
    signature,
    timestamp: ts,
    body: text,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, 'x-signature-ed25519': signature, 'x-signature-timestamp': ts },
  };
}

/** What an endpoint checks: does `signature` sign `timestamp + body` under `publicKey` (64 hex characters)? */
export function verifyInteractionSignature(publicKey: string, signature: string, timestamp: string, body: string | Uint8Array): boolean {
  return verifyRequest(publicKey, signature, timestamp, body);
}
