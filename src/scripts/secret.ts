/**
 * `npm run secret`: prints a fresh KEY_ENCRYPTION_SECRET (32 random bytes, base64) on stdout, and
 * nothing else there, so `KEY_ENCRYPTION_SECRET=$(npm run -s secret)` works.
 */
import { generateSecret } from '../keys/secret.js';

process.stdout.write(`${generateSecret()}\n`);
if (process.stderr.isTTY) {
  process.stderr.write(
    'Store it as KEY_ENCRYPTION_SECRET (keep it out of git). Losing it makes every stored API key unreadable.\n',
  );
}
