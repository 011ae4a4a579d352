/**
 * Discord signs every request to the Interactions Endpoint URL with the application's Ed25519
 * key: `X-Signature-Ed25519` is the hex signature of `X-Signature-Timestamp` followed by the raw
 * body, checked against the public key shown in the Developer Portal (DISCORD_PUBLIC_KEY). Only
 * Node's own crypto is used; nothing here throws on hostile input.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

const HEX_64 = /^[0-9a-f]{64}$/i;
const HEX_128 = /^[0-9a-f]{128}$/i;

/** The public key as Node wants it, from the portal's 64 hex digits; throws on anything else. */
export function publicKeyFromHex(hex: string): KeyObject {
  if (!HEX_64.test(hex)) throw new Error('an Ed25519 public key is 64 hexadecimal digits');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') }, format: 'jwk' });
}

/** Whether `signatureHex` signs `timestamp + body` under `publicKey`. */
export function isSignedByDiscord(publicKey: KeyObject, signatureHex: string, timestamp: string, body: Buffer): boolean {
  if (!HEX_128.test(signatureHex)) return false;
  try {
    return verify(null, Buffer.concat([Buffer.from(timestamp, 'utf8'), body]), publicKey, Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}
