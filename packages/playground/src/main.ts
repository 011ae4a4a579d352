/**
 * `npm run demo`: the whole product on this machine, no token and no network — the feed API
 * sandbox, the Discord emulator, the real bot and a web playground at http://127.0.0.1:8080.
 *
 *   npm run demo                      state kept in data/demo between runs
 *   npm run demo -- --fresh           start over from the seed
 *   npm run demo -- --bot-logs        also print the bot's log lines
 *   npm run demo -- --http            interactions POSTed to the bot (INTERACTIONS_MODE=http)
 *   npm run demo -- --replicas 3      …to 3 bot replicas behind nginx (implies --http)
 *
 * Environment: DEMO_PORT (8080; a free port is taken when busy), DEMO_DATA_DIR (data/demo),
 * DEMO_SIMULATE_MS (15000; 0 = no new posts), DEMO_LOG_LEVEL (warn), DEMO_BOT_LOGS=1, DEMO_FRESH=1,
 * DEMO_HTTP=1, DEMO_REPLICAS (1).
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { BotGroup } from './bot-group.js';
import { createLogger } from './log.js';
import { DEFAULT_DEMO_DIR, DEFAULT_DEMO_PORT, DEFAULT_SIMULATE_MS, startDemo, type RunningDemo } from './demo.js';

const Flag = z.enum(['1', 'true', 'yes', '0', 'false', 'no']).transform((v) => ['1', 'true', 'yes'].includes(v));
const EnvSchema = z.object({
  DEMO_PORT: z.coerce.number().int().min(0).max(65_535).default(DEFAULT_DEMO_PORT),
  DEMO_DATA_DIR: z.string().min(1).default(DEFAULT_DEMO_DIR),
  DEMO_SIMULATE_MS: z.coerce.number().int().min(0).default(DEFAULT_SIMULATE_MS),
  DEMO_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
  DEMO_BOT_LOGS: Flag.default(false),
  DEMO_FRESH: Flag.default(false),
  DEMO_HTTP: Flag.default(false),
  DEMO_REPLICAS: z.coerce.number().int().min(1).max(16).optional(),
});

function readConfig() {
  const { values } = parseArgs({
    options: {
      fresh: { type: 'boolean' },
      'bot-logs': { type: 'boolean' },
      port: { type: 'string' },
      http: { type: 'boolean' },
      replicas: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
  });
  if (values.help) {
    console.log(
      'usage: npm run demo [-- --fresh] [--bot-logs] [--port N] [--http] [--replicas N]\n' +
        'env: DEMO_PORT, DEMO_DATA_DIR, DEMO_SIMULATE_MS, DEMO_LOG_LEVEL, DEMO_BOT_LOGS, DEMO_FRESH, DEMO_HTTP, DEMO_REPLICAS',
    );
    process.exit(0);
  }
  const present = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => k.startsWith('DEMO_') && v !== ''));
  const parsed = EnvSchema.safeParse({
    ...present,
    ...(values.port !== undefined ? { DEMO_PORT: values.port } : {}),
    ...(values.replicas !== undefined ? { DEMO_REPLICAS: values.replicas } : {}),
  });
  if (!parsed.success) {
    throw new Error(`invalid demo settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const replicas = parsed.data.DEMO_REPLICAS;
  return {
    ...parsed.data,
    fresh: parsed.data.DEMO_FRESH || values.fresh === true,
    botLogs: parsed.data.DEMO_BOT_LOGS || values['bot-logs'] === true,
    // Replicas exist only behind an Interactions Endpoint, so asking for them asks for HTTP.
    transport: parsed.data.DEMO_HTTP || values.http === true || replicas !== undefined ? ('http' as const) : ('gateway' as const),
    replicas: replicas ?? 1,
  };
}

/** How interactions reach the bot, for the banner: the mode, and over HTTP the endpoint and the key. */
function interactionLines(demo: RunningDemo): string[] {
  if (demo.transport === 'gateway') return ['  Interactions       over the gateway — add --http to have them POSTed to the bot'];
  const front = demo.replicas > 1 ? `  (nginx → ${demo.replicas} replicas)` : '';
  return [
    '  Interactions       over HTTP (INTERACTIONS_MODE=http): signed by the emulator, POSTed to the bot',
    `  Endpoint URL       ${demo.endpoint ?? 'NOT set'}${front}`,
    `  Public key         ${demo.stack.emulator.publicKey}  (the emulator's; the bot verifies each request with it)`,
  ];
}

function botLine(demo: RunningDemo, config: ReturnType<typeof readConfig>): string {
  const bot = demo.stack.bot;
  const pids = bot instanceof BotGroup ? bot.members.map((m) => m.child.pid ?? '?').join(', ') : String(bot?.child.pid ?? '?');
  const what = demo.replicas > 1 ? `${demo.replicas} replicas from source (pids ${pids})` : `from source (pid ${pids})`;
  return `  Bot                ${what}${config.botLogs ? ', logs below' : ' — add --bot-logs to see its logs'}`;
}

function banner(demo: RunningDemo, config: ReturnType<typeof readConfig>): string {
  const rel = relative(process.cwd(), demo.dataDir);
  const dir = rel && !rel.startsWith('..') ? rel : demo.dataDir;
  const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
  const cyan = (s: string) => (process.stdout.isTTY ? `\x1b[36m${s}\x1b[0m` : s);
  return [
    '',
    bold(`  feedbot demo is running — interactions over ${demo.transport === 'http' ? 'HTTP' : 'the gateway'}`),
    '',
    `  ➜  Playground:  ${bold(cyan(demo.url))}`,
    '',
    `  Feed API sandbox   ${demo.stack.sandbox.url}  (new posts every ${config.DEMO_SIMULATE_MS > 0 ? `${config.DEMO_SIMULATE_MS / 1000} s` : 'never'})`,
    `  Discord emulator   ${demo.stack.emulator.apiUrl}`,
    ...interactionLines(demo),
    botLine(demo, config),
    `  API key            ${demo.autoKey.ok ? `set through /apikey set: “${demo.autoKey.answer}”` : `NOT set (${demo.autoKey.answer}); run /apikey set in the playground`}`,
    `  State              ${demo.resumed ? 'kept from the last run' : 'new'} in ${dir} (kept between runs; --fresh starts over)`,
    '',
    '  Press Ctrl-C to stop.',
    '',
  ].join('\n');
}

/** SIGINT or SIGTERM: everything the demo started is stopped within this, or killed. */
const STOP_DEADLINE_MS = 7000;

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger('demo', config.DEMO_LOG_LEVEL);
  const running: { demo?: RunningDemo } = {};
  let stopping = false;
  let firstSignalAt = 0;

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      // A terminal's Ctrl-C reaches npm, tsx and this process at once, and npm and tsx relay it
      // too, so one key press can arrive twice at once.
      if (Date.now() - firstSignalAt < 1500) return;
      console.error(`\n${signal} again: exiting now.`);
      running.demo?.stack.bot?.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    firstSignalAt = Date.now();
    const demo = running.demo;
    if (!demo) {
      // The sandbox, the emulator and the playground live in this process and end with it; a bot
      // or deploy-commands already started sees its stdin close and stops itself (exit-with-parent).
      console.error(`\n${signal} during start-up: exiting.`);
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    }
    // A service manager waits ~10 s before SIGKILL: whatever has not stopped by then is killed here.
    setTimeout(() => {
      console.error(`did not stop within ${STOP_DEADLINE_MS / 1000} s: killing the bot and exiting.`);
      demo.stack.bot?.kill('SIGKILL');
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    console.log('\nstopping: the bot first, then the emulator and the sandbox…');
    await demo.close();
    console.log('stopped.');
    process.exit(0);
  };
  process.on('SIGINT', (s) => void stop(s));
  process.on('SIGTERM', (s) => void stop(s));

  const mode = config.transport === 'http' ? `, interactions over HTTP${config.replicas > 1 ? ` to ${config.replicas} replicas` : ''}` : '';
  console.log(`feedbot demo: starting (data in ${config.DEMO_DATA_DIR}${config.fresh ? ', fresh' : ''}${mode})…`);
  const demo = await startDemo({
    dataDir: config.DEMO_DATA_DIR,
    port: config.DEMO_PORT,
    fallbackToFreePort: true,
    fresh: config.fresh,
    simulateMs: config.DEMO_SIMULATE_MS > 0 ? config.DEMO_SIMULATE_MS : false,
    transport: config.transport,
    replicas: config.replicas,
    logger,
    onStep: (step) => console.log(`  · ${step}`),
    ...(config.botLogs ? { onBotOutput: (line: string, replica?: number) => console.log(`[bot${replica ? ` ${replica}` : ''}] ${line}`) } : {}),
  });
  running.demo = demo;
  console.log(banner(demo, config));
}

main().catch((error: unknown) => {
  console.error(`feedbot demo failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
