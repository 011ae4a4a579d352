/**
 * `npm run sandbox:admin -- <command>`: the sandbox's operator console over its data folder. Works
 * while the sandbox runs (SQLite WAL); key changes take effect on the next request.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ContentKindSchema, SCOPES, ScopeSchema, type Scope } from '@feedbot/feed-api-contract';
import { silentLogger } from './log.js';
import { AdminError, PlanSchema, SandboxAdmin } from './admin.js';
import { systemClock } from './clock.js';
import { seedDemoData } from './seed.js';
import { DB_FILE, DEFAULT_DATA_DIR } from './server.js';
import { Simulator } from './simulator.js';
import { SandboxStore } from './store.js';

export const CLI_HELP = `Usage: npm run sandbox:admin -- <command> [options]

Servers
  servers                                   list servers, plans and masked keys
  server:create <guildId> [--plan <plan>]   create a server (plan: server (default), pro, free),
                                            or change the plan of an existing one
  server:plan <guildId> <plan>              change a server's plan

Keys (one per server; generating again invalidates the previous key at once)
  key:generate <guildId> [--scopes <list>] [--rate-limit <n>]
                                            print a new key ONCE; scopes: comma-separated from
                                            ${SCOPES.join(', ')} (default: all), or "none"
  key:show <guildId>                        masked key and scopes
  key:revoke <guildId>                      delete the key

Feeds and posts
  feeds <guildId>                           list the server's feeds
  feed:pause <guildId> <feedId>             estado → pausado (the simulator skips it)
  feed:resume <guildId> <feedId>            estado → activo
  feed:quiet <guildId> <feedId> <days>      its latest post (ultimoPost) becomes <days> days ago
  post:add <guildId> <feedId> [--tipo <post|reel|story>] [--caption <text>]
  simulate [--all]                          one simulator round (--all: one post per active feed)
  seed [--seed <n>]                         create the demo data if it is not there yet

Options
  --data-dir <dir>   data folder (default: $SANDBOX_DATA_DIR or ${DEFAULT_DATA_DIR})
`;

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

const ScopeListSchema = z
  .string()
  .transform((text) => (text.trim() === 'none' ? [] : text.split(',').map((s) => s.trim()).filter(Boolean)))
  .pipe(z.array(ScopeSchema));

function need(positionals: string[], index: number, name: string): string {
  const value = positionals[index];
  if (value === undefined) throw new AdminError(`missing <${name}>; see "help"`);
  return value;
}

/** Runs one command; returns the process exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'data-dir': { type: 'string' },
        plan: { type: 'string' },
        scopes: { type: 'string' },
        'rate-limit': { type: 'string' },
        tipo: { type: 'string' },
        caption: { type: 'string' },
        seed: { type: 'string' },
        all: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${CLI_HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (!command || command === 'help' || values.help) {
    io.out(CLI_HELP);
    return command && command !== 'help' ? 2 : 0;
  }

  const dataDir = resolve(values['data-dir'] ?? io.env?.SANDBOX_DATA_DIR ?? DEFAULT_DATA_DIR);
  const store = await SandboxStore.open(join(dataDir, DB_FILE));
  const simulator = new Simulator(store, systemClock, silentLogger(), { seed: Date.now() });
  const admin = new SandboxAdmin(store, systemClock, simulator);
  try {
    await dispatch(command, args, values, admin, store, io);
    return 0;
  } catch (err) {
    if (err instanceof AdminError || err instanceof z.ZodError) {
      io.err(`error: ${err instanceof z.ZodError ? err.issues.map((i) => i.message).join('; ') : err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await store.close();
  }
}

type Values = Record<string, string | boolean | undefined>;

async function dispatch(command: string, args: string[], values: Values, admin: SandboxAdmin, store: SandboxStore, io: CliIo): Promise<void> {
  const str = (name: string): string | undefined => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  switch (command) {
    case 'servers': {
      const servers = await admin.listServers();
      if (servers.length === 0) io.out('no servers yet: server:create <guildId>');
      for (const server of servers) {
        const key = await admin.describeKey(server.guildId);
        const feeds = await admin.listFeeds(server.guildId);
        io.out(`${server.guildId}  plan=${server.plan}  feeds=${feeds.length}  key=${key ? `${key.masked} [${key.scopes.join(' ') || 'no scopes'}]` : 'none'}`);
      }
      return;
    }
    case 'server:create': {
      const server = await admin.createServer(need(args, 0, 'guildId'), PlanSchema.parse(str('plan') ?? 'server'));
      io.out(`server ${server.guildId} plan=${server.plan}`);
      return;
    }
    case 'server:plan': {
      const server = await admin.setPlan(need(args, 0, 'guildId'), PlanSchema.parse(need(args, 1, 'plan')));
      io.out(`server ${server.guildId} plan=${server.plan}`);
      return;
    }
    case 'key:generate': {
      const scopes: Scope[] = str('scopes') === undefined ? [...SCOPES] : ScopeListSchema.parse(str('scopes'));
      const rateText = str('rate-limit');
      const rateLimit = rateText === undefined ? null : z.coerce.number().int().positive().parse(rateText);
      const guildId = need(args, 0, 'guildId');
      const key = await admin.generateKey(guildId, scopes, { rateLimit });
      io.out(`New key for ${guildId} (scopes: ${scopes.join(' ') || 'none'}). It is shown only now; any previous key no longer works:`);
      io.out(key);
      return;
    }
    case 'key:show': {
      const key = await admin.describeKey(need(args, 0, 'guildId'));
      io.out(key ? `${key.masked}  scopes=[${key.scopes.join(' ')}]  created=${key.createdAt}${key.rateLimit ? `  rate-limit=${key.rateLimit}` : ''}` : 'no key');
      return;
    }
    case 'key:revoke': {
      io.out((await admin.revokeKey(need(args, 0, 'guildId'))) ? 'key revoked' : 'no key to revoke');
      return;
    }
    case 'feeds': {
      const feeds = await admin.listFeeds(need(args, 0, 'guildId'));
      if (feeds.length === 0) io.out('no feeds');
      for (const feed of feeds) {
        io.out(`${feed.id}  @${feed.cuenta}  canal=${feed.canalId}  ${feed.estado}  tipos=${feed.tipos.join(',')}  filtros=${feed.filtros.length}  ultimoPost=${feed.ultimoPost ?? '-'}`);
      }
      return;
    }
    case 'feed:pause':
    case 'feed:resume': {
      const guildId = need(args, 0, 'guildId');
      const feedId = need(args, 1, 'feedId');
      const feed = command === 'feed:pause' ? await admin.pauseFeed(guildId, feedId) : await admin.resumeFeed(guildId, feedId);
      io.out(`feed ${feed.id} (@${feed.cuenta}) is now ${feed.estado}`);
      return;
    }
    case 'feed:quiet': {
      const days = z.coerce.number().min(0).parse(need(args, 2, 'days'));
      const feed = await admin.quietFeed(need(args, 0, 'guildId'), need(args, 1, 'feedId'), days);
      io.out(`feed ${feed.id} (@${feed.cuenta}) last posted ${feed.ultimoPost ?? '-'}`);
      return;
    }
    case 'post:add': {
      const tipoText = str('tipo');
      const post = await admin.addPost(need(args, 0, 'guildId'), need(args, 1, 'feedId'), {
        tipo: tipoText === undefined ? undefined : ContentKindSchema.parse(tipoText),
        caption: str('caption'),
      });
      io.out(`post ${post.code} (${post.tipo}) forwarded at ${post.publicadoDiscord}`);
      return;
    }
    case 'simulate': {
      const posts = await admin.simulateTick({ everyFeed: values.all === true });
      io.out(`forwarded ${posts.length} post(s)`);
      return;
    }
    case 'seed': {
      const seed = z.coerce.number().int().parse(str('seed') ?? '1');
      const result = await seedDemoData(store, { seed, clock: systemClock });
      io.out(result.seeded ? `seeded ${result.feeds} feeds and ${result.posts} posts` : 'demo data already present');
      return;
    }
    default:
      throw new AdminError(`unknown command "${command}"; see "help"`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runCli(process.argv.slice(2), {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    env: process.env,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exitCode = 1;
    },
  );
}
