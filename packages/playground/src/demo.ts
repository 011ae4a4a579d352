/**
 * The whole demo in one call: the sandbox (seeded), the Discord emulator, the real bot (from its
 * TypeScript sources, as `npm run dev` runs it) with its commands deployed, the demo server's API
 * key set through the same `/apikey set` form an admin would use, the forwarding service's new
 * posts (recorded by the sandbox's simulator and posted into each feed's channel), and the web
 * playground. `npm run demo` and the browser test both start it this way.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { APIEmbed, APIMessage } from 'discord-api-types/v10';
import { silentLogger, type Logger } from './log.js';
import { DEMO_GUILD_ID, type PostRecord } from '@feedbot/sandbox';
import type { PlaygroundActor, PlaygroundNote } from './api.js';
import { startPlayground, type RunningPlayground } from './playground.js';
import { BotGroup, type RunningBot } from './bot-group.js';
import { LOCK_FILE, lockDataDir, type DataDirLock } from './data-lock.js';
import { missingNginx } from './nginx.js';
import { watchDemoKey, type KeyState, type KeyWatch } from './key-watch.js';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, MEMBER_PERMISSIONS, MEMBER_USER_ID, Stack, demoGuild, type BotProcess } from './stack.js';

export const DEFAULT_DEMO_DIR = 'data/demo';
export const DEFAULT_DEMO_PORT = 8080;
export const DEFAULT_SIMULATE_MS = 15_000;
const SECRET_FILE = 'bot-key-secret';

export interface DemoOptions {
  dataDir?: string;
  /** Playground port; 0 picks a free one. */
  port?: number;
  /** Take a free port when `port` is busy (the CLI does; tests use port 0). */
  fallbackToFreePort?: boolean;
  /** Delete the data directory first. */
  fresh?: boolean;
  /**
   * How often the service forwards generated posts (a round at start, then one every so often);
   * false for never (`forwardPosts()` still runs a round on demand).
   */
  simulateMs?: number | false;
  seed?: number;
  /**
   * How the emulator delivers interactions: over the gateway (default), or `http`: the bot runs
   * with INTERACTIONS_MODE=http and the emulator POSTs signed interactions to its endpoint.
   */
  transport?: 'gateway' | 'http';
  /** With `http`: this many bot replicas behind nginx (needs nginx installed). Default 1. */
  replicas?: number;
  logger?: Logger;
  /** Receives every line the bot prints (stdout and stderr); `replica` (1-based) when there are several. */
  onBotOutput?: (line: string, replica?: number) => void;
  /** Reports start-up steps as they happen. */
  onStep?: (step: string) => void;
}

export interface AutoKeyResult {
  ok: boolean;
  /** The bot's answer, as its first embed's title or description. */
  answer: string;
}

export interface RunningDemo {
  url: string;
  dataDir: string;
  /** Whether the data directory already existed (state kept from an earlier run). */
  resumed: boolean;
  stack: Stack;
  transport: 'gateway' | 'http';
  /** Bot processes answering interactions (several only with `http` and `replicas`). */
  replicas: number;
  /** The Interactions Endpoint URL the demo saved in the emulator (`http` only). */
  endpoint: string | undefined;
  playground: RunningPlayground;
  autoKey: AutoKeyResult;
  /**
   * One forwarding round now, as the demo runs every `simulateMs`: the sandbox records a new post
   * for some active feeds (for each with `everyFeed`), and each post appears in its feed's channel
   * as the service's webhook posts it. Resolves with the messages posted.
   */
  forwardPosts(options?: ForwardOptions): Promise<APIMessage[]>;
  close(): Promise<void>;
}

export interface ForwardOptions {
  /** Every active feed forwards one post, instead of each one by chance. */
  everyFeed?: boolean;
}

/** The webhook the forwarding service posts through: the author of every forwarded post. */
export const FORWARDER_WEBHOOK = { id: '1600000000000000001', name: 'Post forwarder' } as const;

/**
 * The bot's key store is encrypted with a secret; keeping it next to the data lets a later run
 * read the keys it stored. Created once, readable by the owner only.
 */
function keySecret(dataDir: string): string {
  const file = join(dataDir, SECRET_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

function firstEmbedText(messages: APIMessage[]): string {
  const embed = messages.flatMap((m) => m.embeds ?? [])[0];
  return embed?.title ?? embed?.description ?? messages[0]?.content ?? '';
}

/** `/apikey set` as the admin, then the form submitted with the demo key: what a person would do. */
async function setDemoKey(stack: Stack): Promise<AutoKeyResult> {
  const admin = { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS, locale: 'en-US' };
  const opened = await stack.emulator
    .sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'set', guildId: DEMO_GUILD_ID, ...admin })
    .waitForAck(10_000);
  const input = findTextInput(opened.modal?.components);
  if (opened.ack?.type !== 9 || !input) return { ok: false, answer: `the bot did not open the key form (ack ${opened.ack?.type ?? 'none'})` };
  const done = await stack.emulator
    .submitModal({ interactionId: opened.id, values: { [input]: stack.demoKey }, ...admin })
    .waitForFinal({ timeoutMs: 15_000 });
  const messages = [...(done.original ? [done.original] : []), ...done.followUps];
  const colour = messages.flatMap((m) => m.embeds ?? [])[0]?.color;
  // The bot answers a stored key with its success colour; anything else is an explanation.
  return { ok: colour === 0x57f287, answer: firstEmbedText(messages) };
}

/**
 * The banner about the demo server's key: set by the demo at start, gone since (with how to set
 * one again), set again by a visitor, or the demo's own failure to set it.
 */
export function keyNote(autoKey: AutoKeyResult, state: KeyState, wasMissing: boolean): PlaygroundNote {
  if (state === 'missing') {
    return {
      kind: 'warning',
      text: {
        en: 'This server has no API key any more (removed with /apikey remove or /feedbot forget): feed commands are refused until an admin sets one. Run /apikey set as the admin and paste the sandbox key below.',
        es: 'Este servidor ya no tiene clave de la API (se quitó con /clave-api quitar o /feedbot olvidar): los comandos de feeds se rechazan hasta que un admin ponga una. Ejecuta /clave-api establecer como admin y pega la clave del sandbox de abajo.',
      },
    };
  }
  if (state === 'set' && autoKey.ok && !wasMissing) {
    return {
      kind: 'info',
      text: {
        en: `The demo ran /apikey set as Ana (admin) and submitted the sandbox key; feedbot answered “${autoKey.answer}”. Every command works right away.`,
        es: `La demo ejecutó /clave-api establecer como Ana (admin) con la clave del sandbox, y feedbot la guardó. Todos los comandos funcionan ya.`,
      },
    };
  }
  if (state === 'set') {
    return {
      kind: 'info',
      text: {
        en: 'This server has an API key again: every command works. /apikey status shows which key it is.',
        es: 'Este servidor vuelve a tener clave de la API: todos los comandos funcionan. /clave-api estado muestra cuál es.',
      },
    };
  }
  return {
    kind: 'warning',
    text: {
      en: `The demo could not set the API key itself (${autoKey.answer}). Run /apikey set as the admin and paste the sandbox key below.`,
      es: `La demo no pudo poner la clave de la API (${autoKey.answer}). Ejecuta /clave-api establecer como admin y pega la clave del sandbox de abajo.`,
    },
  };
}

function findTextInput(components: unknown): string | undefined {
  if (!Array.isArray(components)) return undefined;
  for (const c of components as Record<string, unknown>[]) {
    if (c.type === 4 && typeof c.custom_id === 'string') return c.custom_id;
    const nested = findTextInput(c.components) ?? findTextInput(c.component ? [c.component] : undefined);
    if (nested) return nested;
  }
  return undefined;
}

function actors(): Record<'admin' | 'member', PlaygroundActor> {
  const members = demoGuild().members ?? [];
  const info = (userId: string, permissions: string, avatar: string): PlaygroundActor => {
    const m = members.find((x) => x.userId === userId);
    return { userId, username: m?.username ?? userId, displayName: m?.globalName ?? m?.username ?? userId, permissions, avatar };
  };
  return {
    admin: info(ADMIN_USER_ID, ADMIN_PERMISSIONS, '/static/avatars/ana.svg'),
    member: info(MEMBER_USER_ID, MEMBER_PERMISSIONS, '/static/avatars/max.svg'),
  };
}

/** A forwarded post as the service writes it: account and kind, caption and picture, linked to the post. */
function forwardedEmbed(sandboxUrl: string, post: PostRecord) {
  // The sandbox serves each post's page and picture there (the API's postUrl and mediaUrl).
  return {
    title: `@${post.cuenta} · ${post.tipo}`,
    url: `${sandboxUrl}/p/${post.code}`,
    description: post.caption,
    image: { url: `${sandboxUrl}/media/${post.code}.png` },
    timestamp: post.publicadoEn,
  } satisfies APIEmbed;
}

/**
 * What the real service does with a new post: records it (a round of the sandbox's simulator)
 * and posts it into its feed's channel through its webhook, so the channel holds posts a member
 * can right-click (Apps → Feed of this post). Rounds run one at a time; `everyMs` false: only on demand.
 */
function startForwarding(stack: Stack, logger: Logger, everyMs: number | false) {
  let latest: Promise<unknown> = Promise.resolve();

  async function round(options: ForwardOptions): Promise<APIMessage[]> {
    const posts = (await stack.sandbox.admin.simulateTick(options)).filter((p) => p.guildId === DEMO_GUILD_ID);
    if (posts.length === 0) return [];
    const channelOf = new Map((await stack.sandbox.admin.listFeeds(DEMO_GUILD_ID)).map((f) => [f.id, f.canalId]));
    const messages: APIMessage[] = [];
    for (const post of posts) {
      const channelId = channelOf.get(post.feedId);
      if (!channelId) continue;
      try {
        messages.push(stack.emulator.postMessage({ channelId, author: { webhook: FORWARDER_WEBHOOK }, embeds: [forwardedEmbed(stack.sandbox.url, post)] }));
      } catch (error) {
        // Its channel was deleted (the emulator knows no such channel): the service has nowhere to post it.
        logger.debug({ err: error, feedId: post.feedId }, 'a forwarded post was not posted');
      }
    }
    return messages;
  }

  const forward = (options: ForwardOptions = {}): Promise<APIMessage[]> => {
    const next = latest.then(() => round(options));
    latest = next.catch(() => undefined);
    return next;
  };
  const timer = everyMs ? setInterval(() => void forward().catch((error: unknown) => logger.warn({ err: error }, 'forwarding posts failed')), everyMs) : undefined;
  timer?.unref();
  return {
    forward,
    /** Stops the timer and waits for a round in progress (never rejects). */
    async stop(): Promise<void> {
      clearInterval(timer);
      await latest;
    },
  };
}

function startBotStep({ transport, replicas }: { transport: 'gateway' | 'http'; replicas: number }): string {
  if (transport === 'gateway') return 'starting the bot (from source, as npm run dev does)';
  const who = replicas > 1 ? `${replicas} bot replicas behind nginx` : 'the bot';
  return `starting ${who} (from source, INTERACTIONS_MODE=http) and saving the Interactions Endpoint URL`;
}

function pipeLines(stream: NodeJS.ReadableStream | null | undefined, onLine: (line: string) => void): void {
  let buffer = '';
  stream?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim()) onLine(line);
    }
  });
}

/** The bot's processes, one or each replica. */
function botProcesses(bot: RunningBot): readonly BotProcess[] {
  return bot instanceof BotGroup ? bot.members : [bot as BotProcess];
}

function forwardBotOutput(bot: RunningBot, onLine: (line: string, replica?: number) => void): void {
  const processes = botProcesses(bot);
  processes.forEach((p, i) => {
    const replica = processes.length > 1 ? i + 1 : undefined;
    const forward = (line: string) => onLine(line, replica);
    for (const line of p.lines) forward(JSON.stringify(line));
    pipeLines(p.child.stdout, forward);
    pipeLines(p.child.stderr, forward);
  });
}

/** Thrown before anything starts when the demo cannot run as asked (e.g. replicas without nginx). */
export class DemoSetupError extends Error {
  override name = 'DemoSetupError';
}

/** Checks what the requested layout needs; throws DemoSetupError saying what is missing. */
function checkLayout(opts: DemoOptions): { transport: 'gateway' | 'http'; replicas: number } {
  const transport = opts.transport ?? 'gateway';
  const replicas = opts.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1) throw new DemoSetupError(`replicas must be a whole number from 1 up (got ${replicas})`);
  if (replicas > 1 && transport !== 'http') throw new DemoSetupError('replicas need the http transport (--http): over the gateway one process holds the session');
  if (replicas > 1) {
    // missingNginx throws under CI instead of returning; either way nginx is not there.
    let missing: string | undefined;
    try {
      missing = missingNginx();
    } catch {
      missing = 'nginx not found';
    }
    if (missing) throw new DemoSetupError(`${replicas} replicas need nginx in front of them, and nginx is not installed (apt-get install nginx); run with one replica instead`);
  }
  return { transport, replicas };
}

export async function startDemo(opts: DemoOptions = {}): Promise<RunningDemo> {
  const layout = checkLayout(opts);
  const dataDir = resolve(opts.dataDir ?? DEFAULT_DEMO_DIR);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Before anything touches the folder: a second demo must not regenerate the first one's key.
  const lock = lockDataDir(dataDir);
  try {
    if (opts.fresh) for (const entry of readdirSync(dataDir)) if (entry !== LOCK_FILE) rmSync(join(dataDir, entry), { recursive: true, force: true });
    return await startLockedDemo(dataDir, { ...opts, ...layout }, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLockedDemo(dataDir: string, opts: DemoOptions & ReturnType<typeof checkLayout>, lock: DataDirLock): Promise<RunningDemo> {
  const logger = opts.logger ?? silentLogger();
  const step = opts.onStep ?? (() => undefined);
  const resumed = existsSync(join(dataDir, 'sandbox'));

  step('starting the feed API sandbox and the Discord emulator');
  const stack = await Stack.start({
    dataDir,
    logger,
    seed: opts.seed ?? 1,
    // The demo runs the simulator's rounds itself (startForwarding), so they reach the channels too.
    simulateMs: false,
    keySecret: keySecret(dataDir),
    transport: opts.transport,
    replicas: opts.replicas,
  });
  const simulateMs = opts.simulateMs ?? DEFAULT_SIMULATE_MS;
  let playground: RunningPlayground | undefined;
  let forwarding: ReturnType<typeof startForwarding> | undefined;
  let keyWatch: KeyWatch | undefined;
  let closing = false;
  try {
    step('registering the slash commands (npm run deploy-commands)');
    await stack.deployCommands();
    step(startBotStep(opts));
    const bot = await stack.startBot(60_000);
    if (opts.onBotOutput) forwardBotOutput(bot, opts.onBotOutput);
    void bot.exited.then(({ code, signal }) => {
      if (!closing) logger.error({ code, signal }, 'the bot process exited; commands will go unanswered until the demo is restarted');
    });

    step('setting the demo server API key through /apikey set');
    const autoKey = await setDemoKey(stack);
    if (!autoKey.ok) logger.warn({ answer: autoKey.answer }, 'the demo could not set the API key itself; run /apikey set in the playground');

    forwarding = startForwarding(stack, logger, simulateMs);
    // The emulator keeps no messages between runs: a first round gives each channel a post to right-click at once.
    if (simulateMs) await forwarding.forward({ everyFeed: true });

    // The banner follows the key as visitors change it (/apikey remove, /feedbot forget, /apikey set).
    keyWatch = watchDemoKey({
      emulator: stack.emulator,
      guildId: DEMO_GUILD_ID,
      admin: { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS },
      initial: autoKey.ok ? 'set' : 'unknown',
      botRunning: () => stack.bot?.running ?? false,
      logger,
    });
    const watch = keyWatch;
    const notes = (): PlaygroundNote[] => [keyNote(autoKey, watch.state(), watch.wasMissing())];

    step('starting the web playground');
    playground = await startPlayground({
      emulator: stack.emulator,
      guildId: DEMO_GUILD_ID,
      actors: actors(),
      botAvatar: '/static/avatars/feedbot.svg',
      sandboxOrigin: stack.sandbox.url,
      sandboxCaPem: stack.sandbox.caPem,
      demoKey: stack.demoKey,
      notes,
      botRunning: () => stack.bot?.running ?? false,
      replicas: opts.replicas,
      port: opts.port ?? DEFAULT_DEMO_PORT,
      fallbackToFreePort: opts.fallbackToFreePort ?? false,
      logger,
    });
    const running = playground;
    const forwarder = forwarding;
    lock.announce(running.url);
    return {
      url: running.url,
      dataDir,
      resumed,
      stack,
      transport: opts.transport,
      replicas: opts.replicas,
      endpoint: stack.interactionsEndpoint,
      playground: running,
      autoKey,
      forwardPosts: (options) => forwarder.forward(options),
      async close() {
        closing = true;
        watch.close();
        await forwarder.stop();
        await running.close().catch((error: unknown) => logger.warn({ err: error }, 'closing the playground failed'));
        await stack.close();
        lock.release();
      },
    };
  } catch (error) {
    closing = true;
    keyWatch?.close();
    await forwarding?.stop();
    await playground?.close().catch(() => undefined);
    await stack.close().catch(() => undefined);
    throw error;
  }
}
