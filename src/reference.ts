/**
 * The reference a user is shown with an unexpected failure and the operator finds in the log
 * line: 8 characters from an unambiguous alphabet, easy to read out and to grep.
 */
import { randomBytes } from 'node:crypto';

export function newReference(): string {
  const alphabet = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';
  return Array.from(randomBytes(8), (b) => alphabet[b % alphabet.length]).join('');
}
