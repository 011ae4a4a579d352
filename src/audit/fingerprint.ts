/**
 * A short, non-reversible name for an API key, stored in the clear in the guild's settings
 * (`keyStoppedNotified`) to remember which key the "stopped working" post was about. The keys are
 * long random strings, so a hash of one gives nothing away; it is domain separated from the other
 * hashes of the key (the rate gate's, the feeds cache's) so it matches none of them, and cut to
 * 64 bits, plenty to tell one guild's successive keys apart.
 */
import { createHash } from 'node:crypto';

export function keyFingerprint(apiKey: string): string {
  return createHash('sha256').update('feedbot:audit:key-fingerprint\0').update(apiKey).digest('hex').slice(0, 16);
}
