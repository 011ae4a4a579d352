/**
 * `npm run keys:rotate`: re-encrypts every stored API key under a new KEY_ENCRYPTION_SECRET.
 *
 * Environment:
 *   KEY_ENCRYPTION_SECRET      the secret the records are encrypted under now (the old one)
 *   NEW_KEY_ENCRYPTION_SECRET  the secret to move them to (make one with `npm run secret`)
 *   DATABASE_URL               default sqlite://./data/feedbot.sqlite (the file must already exist);
 *                              postgres://… and redis://… / rediss://… work the same way
 *   KEY_STORE_NAMESPACE        optional, default guild-keys
 *
 * Procedure without downtime (the bot reads both secrets during the window):
 *   1. NEW=$(npm run -s secret)
 *   2. Restart the bot with KEY_ENCRYPTION_SECRET=$NEW and KEY_ENCRYPTION_SECRET_PREVIOUS=<old>.
 *      From now on it writes under the new secret and still reads records under the old one.
 *   3. KEY_ENCRYPTION_SECRET=<old> NEW_KEY_ENCRYPTION_SECRET=$NEW npm run keys:rotate
 *      Re-run it until it reports `failed 0`; re-running is safe (records already under the new
 *      secret are only verified and counted as already current).
 *   4. Remove KEY_ENCRYPTION_SECRET_PREVIOUS and restart the bot. Destroy the old secret.
 * Procedure with the bot stopped: run step 3, set KEY_ENCRYPTION_SECRET=$NEW, start the bot.
 *
 * Each record is swapped atomically, so a crash or Ctrl-C half-way leaves every record readable
 * under one of the two secrets; re-run the same command to finish. Failed records (listed by guild
 * id) are under neither secret, or damaged: those guilds must set their key again.
 *
 * Exit codes: 0 all done, 1 some records failed, 2 bad configuration or storage failure.
 * Output never contains a key or a secret.
 */
import { z } from 'zod';
import { base64SecretField } from '../config.js';
import { dropEmptyVariables } from '../env-file.js';
import { createLogger } from '../logger.js';
import { KeyStoreError } from '../keys/errors.js';
import { rotateKeys } from '../keys/rotate.js';
import { passwordOf, redactPassword } from '../keys/store-url.js';

// Both secrets are read as the bot reads KEY_ENCRYPTION_SECRET (config.ts): the new one is what
// the bot is started with next, so a secret the bot would refuse is refused here too.
const EnvSchema = z.object({
  KEY_ENCRYPTION_SECRET: base64SecretField('KEY_ENCRYPTION_SECRET', 'KEY_ENCRYPTION_SECRET is not set (the current, old secret)'),
  NEW_KEY_ENCRYPTION_SECRET: base64SecretField('NEW_KEY_ENCRYPTION_SECRET', 'NEW_KEY_ENCRYPTION_SECRET is not set (make one with `npm run secret`)'),
  DATABASE_URL: z.string().min(1).default('sqlite://./data/feedbot.sqlite'),
  KEY_STORE_NAMESPACE: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
});

function fail(message: string): never {
  process.stderr.write(`keys:rotate: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  // No .env here (the procedure passes both secrets explicitly), but an empty variable is unset.
  dropEmptyVariables();
  const env = EnvSchema.safeParse(process.env);
  if (!env.success) fail(env.error.issues.map((issue) => issue.message).join('; '));
  const config = env.data;
  const { KEY_ENCRYPTION_SECRET: oldSecret, NEW_KEY_ENCRYPTION_SECRET: newSecret } = config;
  if (oldSecret.equals(newSecret)) {
    fail('NEW_KEY_ENCRYPTION_SECRET is the same as KEY_ENCRYPTION_SECRET; generate a new one with `npm run secret`');
  }

  const logger = createLogger({ name: 'keys:rotate', level: config.LOG_LEVEL, pretty: false, destination: process.stderr });
  let result;
  try {
    result = await rotateKeys({
      databaseUrl: config.DATABASE_URL,
      oldSecret,
      newSecret,
      ...(config.KEY_STORE_NAMESPACE === undefined ? {} : { namespace: config.KEY_STORE_NAMESPACE }),
      logger,
    });
  } catch (error) {
    // A driver's message could quote the connection string: its password is masked before printing.
    fail(redactPassword(error instanceof KeyStoreError || error instanceof Error ? error.message : 'rotation failed', passwordOf(config.DATABASE_URL)));
  }

  process.stdout.write(
    `rotated ${result.rotated}, already current ${result.alreadyCurrent}, failed ${result.failed.length}\n`,
  );
  if (result.failed.length > 0) {
    process.stdout.write(`failed guild ids: ${result.failed.join(', ')}\n`);
    process.stdout.write('These records are under neither secret or damaged; re-run, or have those guilds set their key again.\n');
    process.exitCode = 1;
  } else {
    process.stdout.write('Done. Now set KEY_ENCRYPTION_SECRET to the new secret (see the top of src/scripts/rotate-keys.ts).\n');
  }
}

await main();
