/**
 * `npm run keys:migrate -- --from-env VAR --to-env VAR [--verify]` (or `--from URL --to URL`):
 * copies every stored API key record
 * from one key store to another (sqlite://…, postgres://…, redis://…, rediss://…), e.g. from the
 * SQLite file to a shared PostgreSQL or Redis when running more than one bot process.
 *
 * Records are copied as stored, still encrypted: no secret is needed and none is read. Records
 * already identical on the destination are skipped, so re-running is safe. With --verify nothing
 * is written: both sides are compared record by record.
 *
 * Procedure: stop the bot (or accept that keys set during the copy must be set again), run the
 * migration, run it again with --verify, point DATABASE_URL at the destination, start the bot.
 *
 * The URLs: `--from-env SOURCE_URL --to-env TARGET_URL` reads them from those environment
 * variables, so their passwords stay out of `ps` (the command line of a running process is
 * readable by every local user); `--from URL` / `--to URL` take them as arguments.
 *
 * Options: --namespace NS (default KEY_STORE_NAMESPACE or guild-keys).
 * Exit codes: 0 done / both sides match, 1 verify found differences, 2 bad arguments or storage failure.
 * Output never contains a key, a secret, or a password from a URL.
 */
import { parseArgs } from 'node:util';
import { createLogger } from '../logger.js';
import { migrateKeys, verifyKeys } from '../keys/migrate.js';
import { passwordOf, redactPassword } from '../keys/store-url.js';

const USAGE =
  'usage: npm run keys:migrate -- --from-env VAR --to-env VAR [--verify] [--namespace NS] (the URLs in those environment variables; or --from URL --to URL, which shows them in ps)';
const PROGRESS_EVERY = 100;

function fail(message: string): never {
  process.stderr.write(`keys:migrate: ${message}\n`);
  process.exit(2);
}

/** One side's URL: `--from URL`, or `--from-env VAR` (VAR's value); exactly one of the two. */
function urlFrom(side: 'from' | 'to', url: string | undefined, variable: string | undefined): { url: string; name: string } {
  if ((url === undefined) === (variable === undefined)) fail(USAGE);
  if (url !== undefined) return { url, name: `--${side}` };
  const value = process.env[variable!]?.trim();
  if (!value) fail(`--${side}-env ${variable}: ${variable} is not set (or empty)`);
  return { url: value, name: variable! };
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        'from-env': { type: 'string' },
        'to-env': { type: 'string' },
        verify: { type: 'boolean', default: false },
        namespace: { type: 'string' },
      },
      strict: true,
    }));
  } catch {
    // parseArgs' message quotes the offending argument, which may be a URL with its password.
    fail(USAGE);
  }
  const fromSide = urlFrom('from', values.from, values['from-env']);
  const toSide = urlFrom('to', values.to, values['to-env']);
  const { url: from } = fromSide;
  const { url: to } = toSide;
  const passwords = [passwordOf(from), passwordOf(to)];
  const redact = (text: string) => passwords.reduce<string>((out, password) => redactPassword(out, password), text);
  const namespace = values.namespace ?? process.env.KEY_STORE_NAMESPACE;
  const logger = createLogger({ name: 'keys:migrate', level: 'silent', pretty: false, destination: process.stderr });
  const opts = { from, to, fromName: fromSide.name, toName: toSide.name, logger, ...(namespace ? { namespace } : {}) };

  try {
    if (values.verify) {
      const result = await verifyKeys(opts);
      process.stdout.write(
        `verified ${result.total}: matching ${result.matching}, missing ${result.missing.length}, different ${result.different.length}, only in destination ${result.extra.length}\n`,
      );
      if (result.missing.length > 0) process.stdout.write(`missing guild ids: ${result.missing.join(', ')}\n`);
      if (result.different.length > 0) process.stdout.write(`different guild ids: ${result.different.join(', ')}\n`);
      if (result.missing.length > 0 || result.different.length > 0) process.exitCode = 1;
      return;
    }
    const result = await migrateKeys({
      ...opts,
      onProgress: (done, total) => {
        if (done % PROGRESS_EVERY === 0 || done === total) process.stderr.write(`progress: ${done}/${total} records\n`);
      },
    });
    process.stdout.write(`migrated ${result.total} records: copied ${result.copied}, already present ${result.unchanged}\n`);
  } catch (error) {
    fail(redact(error instanceof Error ? error.message : 'migration failed'));
  }
}

await main();
