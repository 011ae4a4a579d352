/**
 * `npm run sandbox`: start the sandbox on https://127.0.0.1:8443 with the demo data, print the
 * URL, the certificate to trust and a fresh full-scope key for the demo server.
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
  demoKey: string;
  demoKeyFile: string;
  banner: string;
}

/** Starts the sandbox with demo data and a fresh demo key; what `npm run sandbox` runs. */
export async function startDemoSandbox(env: SandboxEnv, logger: Logger): Promise<DemoSandbox> {
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
    if (!(await sandbox.admin.getServer(DEMO_GUILD_ID))) await sandbox.admin.createServer(DEMO_GUILD_ID, 'server');
    const demoKey = await sandbox.admin.generateKey(DEMO_GUILD_ID, [...SCOPES]);
    const demoKeyFile = join(sandbox.dataDir, DEMO_KEY_FILE);
    await writeFile(demoKeyFile, `${demoKey}\n`, { mode: 0o600 });
    await chmod(demoKeyFile, 0o600);
    logger.info({ guild: DEMO_GUILD_ID, keyFile: demoKeyFile }, 'generated a new demo key (the previous one no longer works)');
    return { sandbox, demoKey, demoKeyFile, banner: banner(sandbox, demoKey, demoKeyFile) };
  } catch (err) {
    await sandbox.close();
    throw err;
  }
}

function banner(sandbox: RunningSandbox, demoKey: string, demoKeyFile: string): string {
  return [
    '',
    `  feed API sandbox        ${sandbox.url}`,
    `  certificate to trust    ${sandbox.caFile}`,
    `  OpenAPI document        ${sandbox.url}/openapi.json`,
    '',
    `  demo server (guild)     ${DEMO_GUILD_ID}  (plan server, scopes ${SCOPES.join(' ')})`,
    `  demo API key            ${demoKey}`,
    `                          new on every start: the previous demo key no longer works.`,
    `                          also in ${demoKeyFile} (mode 0600)`,
    '',
    '  For the bot, put these lines in .env:',
    `    FEED_API_URL=${sandbox.url}`,
    `    FEED_API_CA_FILE=${sandbox.caFile}`,
    '  and give the key to the bot with /apikey in the demo server.',
    '  (Other Node programs can trust the certificate with NODE_EXTRA_CA_CERTS, set before they start.)',
    '',
    '  Admin: npm run sandbox:admin -- help',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const env = parseSandboxEnv(process.env);
  const logger = createLogger({ name: 'sandbox', level: env.LOG_LEVEL });
  const demo = await startDemoSandbox(env, logger);
  console.log(demo.banner);
  const stop = (signal: string): void => {
    logger.info({ signal }, 'stopping');
    void demo.sandbox.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
