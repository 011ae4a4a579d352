/**
 * `npm run sandbox`: start the sandbox on https://127.0.0.1:8443 with the demo data, print the
 * URL, the certificate to trust and a fresh full-scope key for the demo server, or with
 * `-- --guild <id>` for that (real) Discord server, created in the sandbox if missing. The banner
 * comes first: log lines written while starting are held until it is out.
 *
 * The .env lines name the certificate as FEED_API_CA_FILE, the bot's own CA setting for the feed
 * API: NODE_EXTRA_CA_CERTS is read only when Node starts, so a line for it in .env does nothing.
 *
 * The demo key is regenerated on every start (the previous one stops working) and is written to
 * <dataDir>/demo-key.txt (mode 0600) for scripts. It is printed to the terminal, never logged.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { SCOPES } from '@feedbot/feed-api-contract';
import { createLogger, type Logger } from './log.js';
import { DEMO_GUILD_ID } from './seed.js';
import { heldOutput } from './held-output.js';
import { parseSandboxArgs, SANDBOX_USAGE } from './main-args.js';
import { DEFAULT_DATA_DIR, DEFAULT_PORT, startSandbox, type RunningSandbox } from './server.js';

export const DEMO_KEY_FILE = 'demo-key.txt';

const EnvSchema = z.object({
  SANDBOX_DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65_535).default(DEFAULT_PORT),
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  SANDBOX_SEED: z.coerce.number().int().default(1),
  /** 0 turns the simulator off. */
  SANDBOX_SIMULATE_MS: z.coerce.number().int().min(0).default(20_000),
  SANDBOX_TLS_CERT: z.string().min(1).optional(),
  SANDBOX_TLS_KEY: z.string().min(1).optional(),
  SANDBOX_TLS_CA: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
}).refine((env) => Boolean(env.SANDBOX_TLS_CERT) === Boolean(env.SANDBOX_TLS_KEY), {
  message: 'SANDBOX_TLS_CERT and SANDBOX_TLS_KEY go together',
});
export type SandboxEnv = z.infer<typeof EnvSchema>;

export function parseSandboxEnv(env: NodeJS.ProcessEnv): SandboxEnv {
  const nonEmpty = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(nonEmpty);
  if (!parsed.success) {
    throw new Error(`Invalid sandbox environment: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'env'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

export interface DemoSandbox {
  sandbox: RunningSandbox;
  /** The server the printed key belongs to: the demo server, or the one `--guild` named. */
  guild: string;
  /** The printed key (of `guild`). */
  demoKey: string;
  /** Where it is also written (mode 0600): demo-key.txt, or key-<guild>.txt with `--guild`. */
  demoKeyFile: string;
  banner: string;
}

/**
 * Starts the sandbox with demo data and a fresh full-scope key for the demo server, or for
 * `options.guild` (created with plan `server` when missing); what `npm run sandbox` runs.
 */
export async function startDemoSandbox(env: SandboxEnv, logger: Logger, options: { guild?: string } = {}): Promise<DemoSandbox> {
  const sandbox = await startSandbox({
    dataDir: env.SANDBOX_DATA_DIR,
    port: env.SANDBOX_PORT,
    host: env.SANDBOX_HOST,
    seed: env.SANDBOX_SEED,
    simulate: env.SANDBOX_SIMULATE_MS > 0 ? { intervalMs: env.SANDBOX_SIMULATE_MS } : false,
    logger,
    tls: env.SANDBOX_TLS_CERT && env.SANDBOX_TLS_KEY
      ? { certFile: env.SANDBOX_TLS_CERT, keyFile: env.SANDBOX_TLS_KEY, caFile: env.SANDBOX_TLS_CA }
      : undefined,
  });
  try {
    const guild = options.guild ?? DEMO_GUILD_ID;
    if (!(await sandbox.admin.getServer(guild))) {
      await sandbox.admin.createServer(guild, 'server');
      if (options.guild) logger.info({ guild }, 'created the server named by --guild (plan server)');
    }
    const plan = (await sandbox.admin.getServer(guild))!.plan;
    const demoKey = await sandbox.admin.generateKey(guild, [...SCOPES]);
    const demoKeyFile = join(sandbox.dataDir, options.guild ? `key-${guild}.txt` : DEMO_KEY_FILE);
    await writeFile(demoKeyFile, `${demoKey}\n`, { mode: 0o600 });
    await chmod(demoKeyFile, 0o600);
    logger.info({ guild, keyFile: demoKeyFile }, 'generated a new key (the previous one no longer works)');
    const printed = options.guild ? guildBanner(sandbox, guild, plan, demoKey, demoKeyFile) : banner(sandbox, demoKey, demoKeyFile);
    return { sandbox, guild, demoKey, demoKeyFile, banner: printed };
  } catch (err) {
    await sandbox.close();
    throw err;
  }
}

/** Where the sandbox listens and what the bot's .env needs, around the lines about the key. */
function bannerAround(sandbox: RunningSandbox, keyLines: string[], nextStep: string[]): string {
  return [
    '',
    `  feed API sandbox        ${sandbox.url}`,
    `  certificate to trust    ${sandbox.caFile}`,
    `  OpenAPI document        ${sandbox.url}/openapi.json`,
    '',
    ...keyLines,
    '',
    '  For the bot, put these lines in .env:',
    `    FEED_API_URL=${sandbox.url}`,
    `    FEED_API_CA_FILE=${sandbox.caFile}`,
    ...nextStep,
    '',
    '  Admin: npm run sandbox:admin -- help',
    '',
  ].join('\n');
}

function banner(sandbox: RunningSandbox, demoKey: string, demoKeyFile: string): string {
  return bannerAround(
    sandbox,
    [
      `  demo server (guild)     ${DEMO_GUILD_ID}  (plan server, scopes ${SCOPES.join(' ')})`,
      `  demo API key            ${demoKey}`,
      `                          new on every start: the previous demo key no longer works.`,
      `                          also in ${demoKeyFile} (mode 0600)`,
    ],
    ['  and give the key to the bot with /apikey in the demo server.', '  (Other Node programs can trust the certificate with NODE_EXTRA_CA_CERTS, set before they start.)'],
  );
}

/** The banner of `--guild <id>`: the same lines, the key of that server. */
function guildBanner(sandbox: RunningSandbox, guild: string, plan: string, key: string, keyFile: string): string {
  const warnPlan = plan === 'server' ? [] : [`                          plan ${plan}: the API refuses it (npm run sandbox:admin -- server:plan ${guild} server)`];
  return bannerAround(
    sandbox,
    [
      `  your server (guild)     ${guild}  (plan ${plan}, scopes ${SCOPES.join(' ')})`,
      ...warnPlan,
      `  key for server ${guild}  ${key}`,
      `                          new on every start: the previous key no longer works.`,
      `                          also in ${keyFile} (mode 0600)`,
    ],
    ['  then, in that Discord server, run /apikey set and paste the key.'],
  );
}

/** How long a stop may take: past it, the sandbox exits with what is left open. */
export const STOP_BOUND_MS = 5_000;

/**
 * SIGINT or SIGTERM: `close()`, then exit 0; past `boundMs` exit anyway with a warn line, so that
 * nothing the sandbox waits for (a client, a store) keeps it running after it was told to stop.
 * A second signal has Node's default effect (the handlers are registered once).
 */
export function stopOnSignals(close: () => Promise<void>, logger: Logger, boundMs = STOP_BOUND_MS): void {
  const stop = (signal: string): void => {
    logger.info({ signal }, 'stopping');
    setTimeout(() => {
      logger.warn({ boundMs }, 'did not close in time; exiting with what is still open');
      process.exit(0);
    }, boundMs).unref();
    void close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'close failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

async function main(): Promise<void> {
  const args = parseSandboxArgs(process.argv.slice(2));
  if (args.help) {
    console.log(SANDBOX_USAGE);
    return;
  }
  const env = parseSandboxEnv(process.env);
  const output = heldOutput();
  const logger = createLogger({ name: 'sandbox', level: env.LOG_LEVEL, destination: output });
  let demo: DemoSandbox;
  try {
    demo = await startDemoSandbox(env, logger, { guild: args.guild });
  } catch (err) {
    output.release(process.stdout);
    throw err;
  }
  console.log(demo.banner);
  output.release(process.stdout);
  stopOnSignals(() => demo.sandbox.close(), logger);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
