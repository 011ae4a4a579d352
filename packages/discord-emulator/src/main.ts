/**
 * Runs the Discord emulator on its own (`npm run emulator -- --help`).
 *
 * The bot token comes from the environment (DISCORD_TOKEN by default, `.env` is read), so the
 * bot and the emulator agree on it without it ever being printed. So does the interactions
 * private key, when it is fixed; its public key is printed, for the bot to verify with.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createLogger } from './log.js';
import { EmulatedGuildSchema, generateGuilds } from './guilds.js';
import { InteractionsEndpointError, startEmulator, type DiscordEmulator } from './index.js';
import type { EmulatedGuild } from './types.js';

const HELP = `Usage: npm run emulator -- [options]

Options (environment variable in brackets):
  --port <n>                   port, default 8787 [EMULATOR_PORT]
  --host <addr>                loopback address, default 127.0.0.1 [EMULATOR_HOST]
  --token-env <name>           variable holding the bot token, default DISCORD_TOKEN
  --application-id <id>        default: from the token, else 111111111111111111 [DISCORD_APPLICATION_ID]
  --guilds <n>                 generate n guilds, default 1 [EMULATOR_GUILDS]
  --guilds-file <path>         JSON array of guilds instead ({id,name,ownerId,channels,roles,members})
  --commands-file <path>       JSON array of commands to register globally at start
  --shards <n>                 shard count GET /gateway/bot recommends
  --max-guilds-per-shard <n>   4011 above this, default 2500; 0 = no limit
  --max-concurrency <n>        session_start_limit.max_concurrency: shards identify in buckets
                               shard_id % n, default 16 [EMULATOR_MAX_CONCURRENCY]
  --identify-window-ms <n>     one IDENTIFY per bucket per window, else op 9; default 5000, 0 = off
                               [EMULATOR_IDENTIFY_WINDOW_MS]
  --session-start-limit <n>    IDENTIFYs per 24 h, else op 9; default 1000 [EMULATOR_SESSION_START_LIMIT]
  --ack-deadline-ms <n>        interaction acknowledgement deadline, default 3000
  --heartbeat-interval-ms <n>  HELLO heartbeat_interval, default 41250
  --cors-origin <origin>       the one web page that may call the control API from a browser,
                               exactly, e.g. http://127.0.0.1:8080; default none [EMULATOR_CORS_ORIGIN]
  --interactions-endpoint <url>  deliver interactions over HTTP to this Interactions Endpoint URL
                               (checked with PINGs first; https, or http on this machine)
                               [EMULATOR_INTERACTIONS_ENDPOINT_URL]
  --endpoint-ca-file <path>    PEM certificate(s) to trust for an https endpoint [EMULATOR_ENDPOINT_CA_FILE]
  The interactions key pair is new on every start, unless EMULATOR_INTERACTIONS_PRIVATE_KEY holds
  a fixed Ed25519 private key (64 hex characters of seed, or PKCS#8 PEM); never printed.
  --log-level <level>          default info [LOG_LEVEL]
  -h, --help
`;

const int = (min: number) => z.coerce.number().int().min(min);

const ArgsSchema = z.object({
  port: int(0).max(65_535).default(8787),
  host: z.enum(['127.0.0.1', 'localhost', '::1']).default('127.0.0.1'),
  tokenEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/).default('DISCORD_TOKEN'),
  applicationId: z.string().regex(/^\d{15,21}$/).optional(),
  guilds: int(0).max(100_000).default(1),
  guildsFile: z.string().optional(),
  commandsFile: z.string().optional(),
  shards: int(1).optional(),
  maxGuildsPerShard: int(0).default(2500),
  maxConcurrency: int(1).default(16),
  identifyWindowMs: int(0).default(5000),
  sessionStartLimit: int(1).default(1000),
  ackDeadlineMs: int(1).default(3000),
  heartbeatIntervalMs: int(10).default(41_250),
  corsOrigin: z.string().optional(),
  interactionsEndpoint: z.string().optional(),
  endpointCaFile: z.string().optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** A token shaped as Discord's for `applicationId` (what feedbot's configuration checks); the emulator takes any. */
function exampleToken(applicationId: string): string {
  return `${Buffer.from(applicationId).toString('base64').replace(/=+$/, '')}.emulator.token`;
}

function applicationIdFromToken(token: string): string | undefined {
  const decoded = Buffer.from(token.split('.')[0] ?? '', 'base64').toString('utf8');
  return /^\d{17,20}$/.test(decoded) ? decoded : undefined;
}

/**
 * Interactions go to the endpoint once it passes the checks; one that does not answer yet (the bot
 * starting after the emulator) is tried again for a minute. Meanwhile they go over the gateway.
 */
async function useEndpoint(emulator: DiscordEmulator, url: string): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  for (let attempt = 1; ; attempt++) {
    try {
      await emulator.setInteractionsEndpoint(url);
      process.stdout.write(`  interactions are POSTed to ${emulator.interactionsEndpointUrl}\n`);
      return;
    } catch (error) {
      const waiting = error instanceof InteractionsEndpointError && error.unanswered && Date.now() < giveUpAt;
      if (waiting) {
        if (attempt === 1) process.stdout.write(`  waiting for ${url} to answer (up to a minute)…\n`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      const reason = error instanceof Error ? error.message : String(error);
      process.stderr.write(`Interactions endpoint not set, interactions go over the gateway: ${reason}\n`);
      return;
    }
  }
}

/**
 * An empty variable means unset, as for the bot (src/env-file.ts; packages do not import the
 * bot's code): `.env` lines such as `EMULATOR_PORT=` took the port 0 (a random one), and
 * `EMULATOR_HOST=` or `EMULATOR_GUILDS=` were refused or gave no guild. A blank one (' ') is a value.
 */
function dropEmptyVariables(env: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(env)) if (value === '') delete env[name];
}

/** How long a stop may take: past it, the emulator exits with what is left open. */
const STOP_BOUND_MS = 5_000;

/**
 * SIGINT or SIGTERM: close, then exit 0; past STOP_BOUND_MS exit anyway, saying so, so that no
 * client holding a connection keeps the emulator running after it was told to stop. A second
 * signal has Node's default effect (handlers are registered once).
 */
function stopOnSignals(emulator: DiscordEmulator): void {
  const stop = () => {
    setTimeout(() => {
      process.stderr.write(`The emulator did not close within ${STOP_BOUND_MS / 1000} s; exiting with connections still open.\n`);
      process.exit(0);
    }, STOP_BOUND_MS).unref();
    void emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`Closing the emulator failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  dropEmptyVariables(process.env);
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'token-env': { type: 'string' },
      'application-id': { type: 'string' },
      guilds: { type: 'string' },
      'guilds-file': { type: 'string' },
      'commands-file': { type: 'string' },
      shards: { type: 'string' },
      'max-guilds-per-shard': { type: 'string' },
      'max-concurrency': { type: 'string' },
      'identify-window-ms': { type: 'string' },
      'session-start-limit': { type: 'string' },
      'ack-deadline-ms': { type: 'string' },
      'heartbeat-interval-ms': { type: 'string' },
      'cors-origin': { type: 'string' },
      'interactions-endpoint': { type: 'string' },
      'endpoint-ca-file': { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const env = process.env;
  const args = ArgsSchema.parse({
    port: values.port ?? env.EMULATOR_PORT,
    host: values.host ?? env.EMULATOR_HOST,
    tokenEnv: values['token-env'],
    applicationId: values['application-id'] ?? (env.DISCORD_APPLICATION_ID || undefined),
    guilds: values.guilds ?? env.EMULATOR_GUILDS,
    guildsFile: values['guilds-file'],
    commandsFile: values['commands-file'],
    shards: values.shards,
    maxGuildsPerShard: values['max-guilds-per-shard'],
    maxConcurrency: values['max-concurrency'] ?? (env.EMULATOR_MAX_CONCURRENCY || undefined),
    identifyWindowMs: values['identify-window-ms'] ?? (env.EMULATOR_IDENTIFY_WINDOW_MS || undefined),
    sessionStartLimit: values['session-start-limit'] ?? (env.EMULATOR_SESSION_START_LIMIT || undefined),
    ackDeadlineMs: values['ack-deadline-ms'],
    heartbeatIntervalMs: values['heartbeat-interval-ms'],
    corsOrigin: values['cors-origin'] ?? (env.EMULATOR_CORS_ORIGIN || undefined),
    interactionsEndpoint: values['interactions-endpoint'] ?? (env.EMULATOR_INTERACTIONS_ENDPOINT_URL || undefined),
    endpointCaFile: values['endpoint-ca-file'] ?? (env.EMULATOR_ENDPOINT_CA_FILE || undefined),
    logLevel: values['log-level'] ?? (env.LOG_LEVEL || undefined),
  });
  const botToken = env[args.tokenEnv]?.trim();
  if (!botToken) {
    process.stderr.write(`${args.tokenEnv} is not set. Set it, e.g. in .env, to the token the bot will use: feedbot takes only a token shaped like Discord's (three dot-separated parts, the first the application id in base64), e.g. ${exampleToken('111111111111111111')}\n`);
    process.exitCode = 2;
    return;
  }
  const applicationId = args.applicationId ?? applicationIdFromToken(botToken) ?? '111111111111111111';
  const guilds: EmulatedGuild[] = args.guildsFile
    ? z.array(EmulatedGuildSchema).parse(readJson(args.guildsFile))
    : generateGuilds(args.guilds, { ownerId: '300000000000000001' });
  const logger = createLogger('discord-emulator', args.logLevel);
  const emulator = await startEmulator({
    port: args.port,
    host: args.host,
    applicationId,
    botToken,
    guilds,
    ...(args.shards ? { shards: args.shards } : {}),
    maxGuildsPerShard: args.maxGuildsPerShard === 0 ? Number.POSITIVE_INFINITY : args.maxGuildsPerShard,
    maxConcurrency: args.maxConcurrency,
    identifyWindowMs: args.identifyWindowMs,
    sessionStartLimit: args.sessionStartLimit,
    ackDeadlineMs: args.ackDeadlineMs,
    heartbeatIntervalMs: args.heartbeatIntervalMs,
    ...(args.corsOrigin ? { corsOrigin: args.corsOrigin } : {}),
    ...(env.EMULATOR_INTERACTIONS_PRIVATE_KEY ? { interactionsPrivateKey: env.EMULATOR_INTERACTIONS_PRIVATE_KEY } : {}),
    ...(args.endpointCaFile ? { endpointCa: readFileSync(args.endpointCaFile) } : {}),
    logger,
  });
  if (args.commandsFile) emulator.setCommands(z.array(z.unknown()).parse(readJson(args.commandsFile)));
  process.stdout.write(
    [
      'Discord emulator listening (loopback only)',
      `  DISCORD_API_URL=${emulator.apiUrl}`,
      `  gateway  ${emulator.gatewayUrl}`,
      `  control  ${emulator.controlUrl}   (events: ${emulator.controlUrl}/events)`,
      `  application ${applicationId}, ${guilds.length} guild(s), ${emulator.recommendedShards()} recommended shard(s); token from ${args.tokenEnv}`,
      `  guild ids ${guilds.slice(0, 3).map((g) => g.id).join(', ')}${guilds.length > 3 ? ', …' : ''}   (a sandbox server and key for one: npm run sandbox -- --guild <id>)`,
      ...(applicationIdFromToken(botToken) ? [] : [`  note: feedbot refuses a ${args.tokenEnv} not shaped like a bot token; one that works with this emulator: ${exampleToken(applicationId)}`]),
      `  identify: max_concurrency ${args.maxConcurrency}, one per bucket per ${args.identifyWindowMs} ms, ${args.sessionStartLimit} per 24 h`,
      `  interactions public key ${emulator.publicKey}${env.EMULATOR_INTERACTIONS_PRIVATE_KEY ? ' (fixed)' : ' (new on every start)'}`,
      `  interactions endpoint: PUT ${emulator.controlUrl}/application/interactions-endpoint {"url": …}`,
      '',
    ].join('\n'),
  );
  if (args.interactionsEndpoint) await useEndpoint(emulator, args.interactionsEndpoint);
  stopOnSignals(emulator);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
