/**
 * The application's Ed25519 key pair, as Discord holds it for an app that receives interactions
 * over HTTP: Discord signs `timestamp + raw body` with its private key and the app verifies with
 * the public key the Developer Portal shows (64 hex characters, `verify_key` of the application).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/** A private key: 64 hex characters (the 32-byte seed), a PKCS#8 PEM, or a KeyObject. */
export type PrivateKeyInput = string | KeyObject;

// DER headers of an Ed25519 key: PKCS#8 before the 32-byte seed, SPKI before the 32-byte public key.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const HEX_32 = /^[0-9a-f]{64}$/i;

export function ed25519PrivateKey(input: PrivateKeyInput): KeyObject {
  if (typeof input !== 'string') {
    if (input.type !== 'private' || input.asymmetricKeyType !== 'ed25519') throw new Error('expected an Ed25519 private key');
    return input;
  }
  const text = input.trim();
  const key = HEX_32.test(text)
    ? createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, Buffer.from(text, 'hex')]), format: 'der', type: 'pkcs8' })
    : createPrivateKey(text);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`expected an Ed25519 private key, got ${key.asymmetricKeyType ?? 'an unknown type'}`);
  return key;
}

export function ed25519PublicKey(hex: string): KeyObject {
  if (!HEX_32.test(hex)) throw new Error('an Ed25519 public key is 64 hex characters');
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });
}

/** The 64-hex-character form the Developer Portal shows. */
export function publicKeyHex(privateOrPublic: KeyObject): string {
  const publicKey = privateOrPublic.type === 'private' ? createPublicKey(privateOrPublic) : privateOrPublic;
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length).toString('hex');
}

const message = (timestamp: string, body: string | Uint8Array) => Buffer.concat([Buffer.from(timestamp, 'utf8'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);

/** `X-Signature-Ed25519`: the hex signature of `timestamp + body`. */
export function signRequest(privateKey: KeyObject, timestamp: string, body: string | Uint8Array): string {
  return sign(null, message(timestamp, body), privateKey).toString('hex');
}

/** What an endpoint must check; false for malformed input as for a wrong signature. */
export function verifyRequest(publicKey: string | KeyObject, signature: string, timestamp: string, body: string | Uint8Array): boolean {
  if (!/^[0-9a-f]{128}$/i.test(signature)) return false;
  try {
    const key = typeof publicKey === 'string' ? ed25519PublicKey(publicKey) : publicKey;
    return verify(null, message(timestamp, body), key, Buffer.from(signature, 'hex'));
  } catch {
    return false;
  }
}

/** Unix seconds, as Discord sends them in `X-Signature-Timestamp`. */
export const unixSeconds = (at = Date.now()): string => String(Math.floor(at / 1000));

/** One application's key pair: generated, or fixed (`privateKey`) for reproducible demos. */
export class InteractionSigner {
  readonly privateKey: KeyObject;
  /** 64 lowercase hex characters: what the bot verifies with (Developer Portal "Public Key"). */
  readonly publicKey: string;

  constructor(privateKey?: PrivateKeyInput) {
    this.privateKey = privateKey === undefined ? generateKeyPairSync('ed25519').privateKey : ed25519PrivateKey(privateKey);
    this.publicKey = publicKeyHex(this.privateKey);
  }

  /** The 32-byte seed as hex: pass it back as `interactionsPrivateKey` to get the same key pair. */
  privateKeyHex(): string {
    return this.privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_PREFIX.length).toString('hex');
  }

  sign(timestamp: string, body: string | Uint8Array): string {
    return signRequest(this.privateKey, timestamp, body);
  }

  verify(signature: string, timestamp: string, body: string | Uint8Array): boolean {
    return verifyRequest(this.publicKey, signature, timestamp, body);
  }
}
