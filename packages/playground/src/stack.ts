/**
 * The whole system on one machine: the feed API sandbox (HTTPS), the Discord emulator, and the
 * real bot process started against both. Used by `npm run demo`, by the end-to-end tests and by
 * the production-steps check (.ci/prod-steps.sh), so all of them exercise the real bot process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SCOPES } from '@feedbot/feed-api-contract';
import { DEMO_CHANNEL_IDS, DEMO_GUILD_ID, startSandbox, type RunningSandbox, type SandboxOptions } from '@feedbot/sandbox';
import {
  DEFAULT_EVERYONE_PERMISSIONS,
  Permission,
  makeBotToken,
  startEmulator,
  type DiscordEmulator,
  type EmulatedGuild,
} from '@feedbot/discord-emulator';
import type { Logger } from './log.js';
import { BotGroup, type ExitResult, type RunningBot } from './bot-group.js';
import { startNginx, type LoadBalancer } from './nginx.js';
import { freePort } from './servers.js';

/**
 * The bot's folder, where its process runs: FEEDBOT_DIR, or the working directory (npm scripts of
 * the repository run from its root).
 */
export const BOT_DIR = resolve(process.env.FEEDBOT_DIR ?? process.cwd());

/**
 * How the bot's programs are launched (`node` is the Node running this process):
 * - `source`: from TypeScript with tsx's loader, `node --conditions=@feedbot/source --import tsx
 *   src/<entry>.ts`, so the demo and the end-to-end tests need no build and see every edit;
 * - `compiled`: what `npm start` and the container image run, `node --enable-source-maps
 *   dist/src/<entry>.js`; needs `npm run build` (or a production install) in the bot's folder.
 * Node itself, not npm: signals reach the bot directly and no wrapper process sits in between.
 */
export type BotLaunch = 'source' | 'compiled';
type BotEntry = 'index' | 'sharded' | 'deploy-commands';

export function botCommand(launch: BotLaunch, entry: BotEntry): string[] {
  return launch === 'compiled'
    ? ['--enable-source-maps', `dist/src/${entry}.js`]
    : ['--conditions=@feedbot/source', '--import', 'tsx', `src/${entry}.ts`];
}

/**
 * Preloaded into the programs a Stack starts: they stop when their stdin (a pipe from this
 * process) closes, so a demo or a test run that is killed outright leaves no bot behind. Found
 * from the package's root, so it resolves from src/ and from a compiled dist/ alike.
 */
const EXIT_WITH_PARENT = fileURLToPath(new URL('../src/exit-with-parent.mjs', import.meta.url));

export const APPLICATION_ID = '1200000000000000001';
export const ADMIN_USER_ID = '1400000000000000001';
export const MEMBER_USER_ID = '1400000000000000002';
export const ADMIN_ROLE_ID = '1500000000000000001';
/** A role without permissions that Max holds: what a server makes a feed-manager role (`/feedbot managers add`). */
export const MODERATOR_ROLE_ID = '1500000000000000002';
export const DEMO_CHANNELS = [
  { id: DEMO_CHANNEL_IDS[0], name: 'news' },
  { id: DEMO_CHANNEL_IDS[1], name: 'media' },
  { id: DEMO_CHANNEL_IDS[2], name: 'food' },
  { id: '1100000000000000104', name: 'announcements', type: 5 },
] as const;

/** Manage Server + the basics: what an admin acting in the demo has. */
export const ADMIN_PERMISSIONS = (BigInt(DEFAULT_EVERYONE_PERMISSIONS) | Permission.ManageGuild).toString();
export const MEMBER_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS;

export function demoGuild(): EmulatedGuild {
  return {
    id: DEMO_GUILD_ID,
    name: 'feedbot demo',
    ownerId: ADMIN_USER_ID,
    channels: [
      { id: '1100000000000000100', name: 'Feeds', type: 4, position: 0 },
      ...DEMO_CHANNELS.map((c, i) => ({
        id: c.id,
        name: c.name,
        type: 'type' in c ? c.type : 0,
        parentId: '1100000000000000100',
        position: i,
      })),
    ],
    roles: [
      { id: DEMO_GUILD_ID, name: '@everyone', permissions: DEFAULT_EVERYONE_PERMISSIONS, position: 0 },
      { id: ADMIN_ROLE_ID, name: 'Admin', permissions: ADMIN_PERMISSIONS, position: 1 },
      { id: MODERATOR_ROLE_ID, name: 'Moderators', permissions: DEFAULT_EVERYONE_PERMISSIONS, position: 2 },
    ],
    members: [
      { userId: ADMIN_USER_ID, username: 'ana_admin', globalName: 'Ana (admin)', roles: [ADMIN_ROLE_ID] },
      { userId: MEMBER_USER_ID, username: 'max_member', globalName: 'Max (member)', roles: [MODERATOR_ROLE_ID] },
    ],
  };
}

export interface StackOptions {
  /** Root folder: the sandbox keeps its data in `<dataDir>/sandbox`, the bot its keys in `<dataDir>/feedbot.sqlite`. */
  dataDir: string;
  logger: Logger;
  sandboxPort?: number;
  emulatorPort?: number;
  seed?: number;
  /** Forward generated posts every this many ms; false for none. */
  simulateMs?: number | false;
  rateLimit?: SandboxOptions['rateLimit'];
  /** Extra guilds for the emulator besides the demo guild. */
  extraGuilds?: EmulatedGuild[];
  /** Environment for the bot process on top of the stack's own. */
  botEnv?: Record<string, string>;
  /** Base64 secret for the bot's key store (one is made when absent). */
  keySecret?: string;
  /** How the bot and deploy-commands are launched; default `source`. */
  launch?: BotLaunch;
  /** The bot's folder (a checkout, or a production install for `compiled`); default BOT_DIR. */
  botDir?: string;
  /**
   * How Discord delivers interactions: over the gateway (default), or `http`: the bot runs with
   * INTERACTIONS_MODE=http on a free loopback port and the emulator's Interactions Endpoint URL
   * points at it once the bot is up.
   */
  transport?: 'gateway' | 'http';
  /**
   * With `http`: this many identical replicas behind a real nginx (round-robin); the emulator's
   * endpoint is nginx. Default 1 (no load balancer).
   */
  replicas?: number;
}

/** What Stack.rollReplica did. */
export interface ReplicaRoll {
  /** The process stopped, the port it listened on, and how it exited. */
  old: BotProcess;
  oldPort: number;
  exit: ExitResult;
  /** Its replacement, now the group's member at the same index, and its port. */
  next: BotProcess;
  nextPort: number;
  /** When the old process got SIGTERM, and when it had exited (epoch ms). */
  signalledAt: number;
  exitedAt: number;
}

export interface RollOptions {
  /** On top of the replica's environment (replicaEnv): what must differ while both run, e.g. METRICS_PORT. */
  env?: Record<string, string>;
  /** Resolves once the replacement may take requests (an operator waits for its /readyz 200); after its `ready` line. */
  ready?: (next: BotProcess) => Promise<void>;
  /** Once nginx sends to the replacement too, before the old process gets SIGTERM. */
  beforeStop?: (next: BotProcess) => Promise<void>;
  /** Once the old process has exited, before nginx is reloaded without it (nginx still lists its closed port). */
  afterStop?: (old: BotProcess) => Promise<void>;
  /** For the replacement's `ready` line, and for the old process to exit before SIGKILL. */
  timeoutMs?: number;
}

export class Stack {
  bot: RunningBot | undefined;
  /** nginx in front of the replicas, once started. */
  loadBalancer: LoadBalancer | undefined;
  /** Processes started with spawnBot (several hosts of a sharded bot); close() stops them. */
  private readonly others = new Set<BotProcess>();
  /** Replicas: extra environment for replica `index` (e.g. its own METRICS_PORT), read at each start. */
  replicaEnv: (index: number) => Record<string, string> = () => ({});

  private constructor(
    readonly sandbox: RunningSandbox,
    readonly emulator: DiscordEmulator,
    readonly demoKey: string,
    readonly botToken: string,
    readonly env: Record<string, string>,
    private readonly logger: Logger,
    private readonly launch: { mode: BotLaunch; dir: string },
    /** HTTP transport: the port of each replica (one unless `replicas`). */
    private readonly replicaPorts: number[] = [],
  ) {}

  static async start(opts: StackOptions): Promise<Stack> {
    mkdirSync(opts.dataDir, { recursive: true });
    const sandbox = await startSandbox({
      dataDir: join(opts.dataDir, 'sandbox'),
      port: opts.sandboxPort ?? 0,
      seed: opts.seed ?? 1,
      simulate: opts.simulateMs ? { intervalMs: opts.simulateMs } : false,
      logger: opts.logger.child({ component: 'sandbox' }),
      ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
    });
    let emulator: DiscordEmulator | undefined;
    try {
      if (!(await sandbox.admin.getServer(DEMO_GUILD_ID))) await sandbox.admin.createServer(DEMO_GUILD_ID, 'server');
      const demoKey = await sandbox.admin.generateKey(DEMO_GUILD_ID, [...SCOPES]);
      const botToken = makeBotToken(APPLICATION_ID);
      emulator = await startEmulator({
        applicationId: APPLICATION_ID,
        botToken,
        guilds: [demoGuild(), ...(opts.extraGuilds ?? [])],
        port: opts.emulatorPort ?? 0,
        defaultUserId: ADMIN_USER_ID,
        logger: opts.logger.child({ component: 'emulator' }),
      });
      const replicaPorts: number[] = [];
      if (opts.transport === 'http') for (let i = 0; i < Math.max(1, opts.replicas ?? 1); i++) replicaPorts.push(await freePort());
      // One replica has no load balancer to take it out on SIGTERM: its shutdown grace would only
      // delay each stop. Replicas behind nginx keep the shipped default.
      const alone: Record<string, string> = replicaPorts.length === 1 ? { SHUTDOWN_GRACE_MS: '0' } : {};
      const http: Record<string, string> =
        opts.transport === 'http' ? { INTERACTIONS_MODE: 'http', DISCORD_PUBLIC_KEY: emulator.publicKey, HOST: '127.0.0.1', PORT: String(replicaPorts[0]), ...alone } : {};
      const env: Record<string, string> = {
        ...http,
        DISCORD_TOKEN: botToken,
        DISCORD_API_URL: emulator.apiUrl,
        FEED_API_URL: sandbox.url,
        // As the README tells operators: the feed API's own CA, read by the bot, not by Node.
        FEED_API_CA_FILE: sandbox.caFile,
        KEY_ENCRYPTION_SECRET: opts.keySecret ?? randomBytes(32).toString('base64'),
        DATABASE_URL: `sqlite://${join(opts.dataDir, 'feedbot.sqlite')}`,
        DEV_GUILD_ID: DEMO_GUILD_ID,
        LOG_LEVEL: 'info',
        LOG_PRETTY: 'false',
        ...opts.botEnv,
      };
      return new Stack(sandbox, emulator, demoKey, botToken, env, opts.logger, { mode: opts.launch ?? 'source', dir: opts.botDir ?? BOT_DIR }, replicaPorts);
    } catch (error) {
      await emulator?.close();
      await sandbox.close();
      throw error;
    }
  }

  /** deploy-commands against the emulator (to the demo guild, or global); resolves with its output. */
  async deployCommands(opts: { global?: boolean } = {}): Promise<string> {
    const env = { ...this.env };
    if (opts.global) delete env.DEV_GUILD_ID;
    const child = this.spawnBotProgram('deploy-commands', env);
    const out: string[] = [];
    child.stdout?.on('data', (d: Buffer) => out.push(d.toString()));
    child.stderr?.on('data', (d: Buffer) => out.push(d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`deploy-commands exited with ${code}: ${out.join('')}`);
    return out.join('');
  }

  /** Starts the bot (every replica, behind nginx, when there are several) and resolves once ready. */
  async startBot(timeoutMs = 30_000): Promise<RunningBot> {
    if (this.bot?.running) throw new Error('the bot is already running');
    if (this.replicaPorts.length > 1) {
      const replica = (i: number) => new BotProcess(this.spawnBotProgram('index', { ...this.env, ...this.replicaEnv(i), PORT: String(this.replicaPorts[i]) }), this.logger);
      const group = new BotGroup(this.replicaPorts.map((_, i) => replica(i)), replica);
      this.bot = group;
      await group.waitForEach((l) => l.msg === 'ready', timeoutMs);
      this.loadBalancer ??= await startNginx(this.replicaPorts);
    } else {
      const bot = new BotProcess(this.spawnBotProgram('index', this.env), this.logger);
      this.bot = bot;
      await bot.waitForLog((l) => l.msg === 'ready', timeoutMs);
    }
    const endpoint = this.interactionsEndpoint;
    // As an operator does in the Developer Portal once the endpoint answers; kept across restarts.
    if (endpoint && this.emulator.interactionsEndpointUrl !== endpoint) await this.emulator.setInteractionsEndpoint(endpoint);
    return this.bot;
  }

  /** HTTP transport: the port each replica listens on now (one unless `replicas`). */
  get ports(): readonly number[] {
    return this.replicaPorts;
  }

  /**
   * A rolling restart of HTTP replica `index` behind nginx, as docs/OPERATIONS.md tells operators
   * to run one: its replacement starts on a new port beside it; once it is ready, nginx is
   * reloaded with the new port added; then the old process gets SIGTERM while nginx still lists
   * it (it answers what reaches it for its grace period, /readyz 503, then refuses connections,
   * which nginx passes to the next replica, and exits once its requests are answered); once it
   * has exited, nginx is reloaded without it. The replacement takes its place in the group.
   */
  async rollReplica(index: number, opts: RollOptions = {}): Promise<ReplicaRoll> {
    const group = this.bot;
    const balancer = this.loadBalancer;
    const oldPort = this.replicaPorts[index];
    if (!(group instanceof BotGroup) || !balancer || oldPort === undefined) throw new Error('rollReplica needs HTTP replicas behind nginx, started');
    const old = group.members[index]!;
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const nextPort = await freePort();
    const next = this.spawnBot({ env: { ...this.replicaEnv(index), ...opts.env, PORT: String(nextPort) } });
    await next.waitForLog((l) => l.msg === 'ready', timeoutMs);
    await opts.ready?.(next);
    await balancer.setUpstreams([...balancer.upstreams, nextPort]);
    await opts.beforeStop?.(next);
    const signalledAt = Date.now();
    const exit = await old.stop(timeoutMs);
    const exitedAt = Date.now();
    await opts.afterStop?.(old);
    await balancer.setUpstreams(balancer.upstreams.filter((port) => port !== oldPort));
    group.replaceMember(index, next);
    this.others.delete(next);
    this.replicaPorts[index] = nextPort;
    return { old, oldPort, exit, next, nextPort, signalledAt, exitedAt };
  }

  /** Where Discord sends interactions in HTTP mode: nginx in front of the replicas, or the one bot. */
  get interactionsEndpoint(): string | undefined {
    if (this.env.INTERACTIONS_MODE !== 'http') return undefined;
    if (this.replicaPorts.length > 1) return this.loadBalancer ? `${this.loadBalancer.url}/interactions` : undefined;
    return `http://${this.env.HOST}:${this.env.PORT}/interactions`;
  }

  /**
   * Starts the bot (`index`, as `npm start`) or a shard manager (`sharded`, as `npm run
   * start:sharded`) with extra environment, e.g. one host's SHARD_IDS; does not wait for it.
   */
  spawnBot(opts: { entry?: 'index' | 'sharded'; env?: Record<string, string> } = {}): BotProcess {
    const bot = new BotProcess(this.spawnBotProgram(opts.entry ?? 'index', { ...this.env, ...opts.env }), this.logger);
    this.others.add(bot);
    void bot.exited.then(() => this.others.delete(bot));
    return bot;
  }

  async close(): Promise<void> {
    await Promise.all([...this.others].map((bot) => bot.stop().catch(() => undefined)));
    await this.bot?.stop().catch(() => undefined);
    await this.loadBalancer?.stop();
    await this.emulator.close();
    await this.sandbox.close();
  }

  private spawnBotProgram(entry: BotEntry, env: Record<string, string>): ChildProcess {
    return spawn(process.execPath, ['--import', pathToFileURL(EXIT_WITH_PARENT).href, ...botCommand(this.launch.mode, entry)], {
      cwd: this.launch.dir,
      env: { ...process.env, ...env, NODE_ENV: 'production' },
      // stdin: a pipe never written to, closed by the kernel when this process dies (EXIT_WITH_PARENT).
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so a signal reaches anything the bot may have started too.
      detached: process.platform !== 'win32',
    });
  }
}

export type LogLine = Record<string, unknown> & { msg?: string };

/** The bot as a child process: its JSON log lines, and signals to its whole process group. */
export class BotProcess {
  readonly lines: LogLine[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  running = true;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly child: ChildProcess,
    private readonly logger: Logger,
  ) {
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (!line.trim()) continue;
        try {
          this.lines.push(JSON.parse(line) as LogLine);
        } catch {
          this.lines.push({ msg: line, raw: true });
        }
        for (const l of this.listeners) l();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
    // 'close', not 'exit': the output pipes close only when every process holding them is gone,
    // so the last log lines have been read by then.
    this.exited = new Promise((resolve) =>
      child.on('close', (code, signal) => {
        this.running = false;
        for (const l of this.listeners) l();
        resolve({ code, signal });
      }),
    );
  }

  /** Resolves with the first log line (past or future) that matches. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs = 10_000): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.lines.find(predicate);
        if (hit) return done(() => resolve(hit));
        if (!this.running) return done(() => reject(new Error(`the bot exited before the expected log line; stderr: ${this.stderr.join('').slice(-2000)}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no matching log line within ${timeoutMs} ms; last lines: ${JSON.stringify(this.lines.slice(-5))}; stderr: ${this.stderr.join('').slice(-2000)}`))),
        timeoutMs,
      );
      const done = (fn: () => void) => {
        clearTimeout(timer);
        this.listeners.delete(check);
        fn();
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Sends a signal to the bot's whole process group. */
  kill(signal: NodeJS.Signals): void {
    if (!this.running || this.child.pid === undefined) return;
    try {
      process.kill(process.platform === 'win32' ? this.child.pid : -this.child.pid, signal);
    } catch (error) {
      this.logger.debug({ err: error }, 'signal not delivered (already gone)');
    }
  }

  /** SIGTERM, then SIGKILL if it does not exit in time. */
  async stop(timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.kill('SIGTERM');
    const timer = setTimeout(() => this.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
