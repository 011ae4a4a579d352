/**
 * `npm run sandbox`'s command line. `--guild <id>` is the path from a real Discord server: the
 * sandbox creates that server (plan `server`) and prints a key for it, so `/apikey set` there
 * accepts it (a key of the demo server belongs to another server and is refused).
 */
import { parseArgs } from 'node:util';
import { SnowflakeSchema } from '@feedbot/feed-api-contract';

export const SANDBOX_USAGE = `usage: npm run sandbox [-- --guild <your Discord server id>]

  --guild <id>   create that server in the sandbox (plan server) and print a full-scope key for it,
                 to paste with /apikey set in that server. Without it: the demo server's key.
  --help         this text

Variables: SANDBOX_PORT (default 8443; 0 picks a free port), SANDBOX_HOST, SANDBOX_DATA_DIR,
SANDBOX_SEED, SANDBOX_SIMULATE_MS, SANDBOX_TLS_CERT/KEY/CA, LOG_LEVEL (see packages/sandbox/README.md).`;

export interface SandboxArgs {
  guild?: string;
  help?: true;
}

/** Parses the arguments after `npm run sandbox --`; throws with the usage on anything it does not know. */
export function parseSandboxArgs(argv: readonly string[]): SandboxArgs {
  let values: { guild?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { guild: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
      strict: true,
    }));
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${SANDBOX_USAGE}`);
  }
  if (values.help) return { help: true };
  if (values.guild === undefined) return {};
  if (!SnowflakeSchema.safeParse(values.guild).success) {
    throw new Error(`--guild must be a Discord id (17–20 digits; with Developer Mode on, right-click the server → Copy Server ID), not "${values.guild}"`);
  }
  return { guild: values.guild };
}
