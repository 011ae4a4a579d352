/**
 * The run-time half of .ci/prod-steps.sh: the production install in <app-dir> (what the image's
 * runtime stage holds) started with the Dockerfile's CMD, against the Discord emulator and the
 * feed API sandbox of this checkout. It registers the commands with the installed deploy-commands,
 * waits for READY and for /readyz, runs the Dockerfile's HEALTHCHECK command, then drives one
 * admin through /apikey set and one member through /stats over the emulator's HTTP control API,
 * as an outside test runner would, and stops the bot with SIGTERM (after which the HEALTHCHECK
 * must fail). Exits non-zero on the first failed expectation.
 *
 *   node --conditions=@feedbot/source --import tsx .ci/prod-smoke.ts <app-dir>
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, MEMBER_PERMISSIONS, MEMBER_USER_ID, Stack, botCommand, freePort } from '@feedbot/playground';
import { DEMO_GUILD_ID } from '@feedbot/sandbox';
import type { InteractionSnapshot } from '@feedbot/discord-emulator';
import { silentLogger } from '../src/logger.js';

const appDir = resolve(process.argv[2] ?? '');
if (!process.argv[2]) throw new Error('usage: prod-smoke.ts <app-dir>');

const say = (message: string) => console.log(`prod-smoke: ${message}`);

function expect(ok: boolean, what: string, detail?: unknown): void {
  if (!ok) throw new Error(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail).slice(0, 2000)}`}`);
  say(`ok - ${what}`);
}


/** One call to the emulator's control API; writes declare JSON, as the emulator requires. */
async function control<T>(stack: Stack, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${stack.emulator.controlUrl}${path}`, {
    method,
    ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

const waitFinal = (stack: Stack, id: string) => control<InteractionSnapshot>(stack, 'POST', `/interactions/${id}/wait?for=final&timeoutMs=15000`);
const answerText = (s: InteractionSnapshot) => JSON.stringify([s.original, ...s.followUps].map((m) => m && { content: m.content, embeds: m.embeds }));

/** Polls GET /readyz until it answers 200. */
async function waitForReadyz(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      last = `${res.status} ${await res.text()}`;
      if (res.status === 200) return;
    } catch (error) {
      last = String(error);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`/readyz did not turn ready within ${timeoutMs} ms (last: ${last.slice(0, 300)})`);
}

/** The Dockerfile's exec-form commands (JSON arrays): its HEALTHCHECK's and its last CMD. */
function dockerfileCommands(): { healthcheck: string[]; cmd: string[] } {
  const file = new URL('../Dockerfile', import.meta.url);
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n\s*/g, ' ')
    .split('\n');
  const health = lines.find((l) => l.startsWith('HEALTHCHECK '));
  const healthcheck = health && /\sCMD\s+(\[.*\])\s*$/.exec(health)?.[1];
  const cmd = lines.filter((l) => l.startsWith('CMD ')).at(-1)?.slice(4);
  if (!healthcheck || !cmd) throw new Error('the Dockerfile has no exec-form HEALTHCHECK CMD and CMD');
  return { healthcheck: JSON.parse(healthcheck) as string[], cmd: JSON.parse(cmd) as string[] };
}

/** Runs the HEALTHCHECK command in the app folder, as the image does; resolves with its exit code. */
function healthcheck(argv: string[], metricsPort: number): Promise<number> {
  const [program, ...args] = argv;
  if (program !== 'node') throw new Error(`the HEALTHCHECK runs ${program}, not node`);
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: appDir, env: { ...process.env, METRICS_PORT: String(metricsPort) }, timeout: 5_000 }, (error) =>
      done(error ? (typeof error.code === 'number' ? error.code : 1) : 0),
    );
  });
}

const docker = dockerfileCommands();
const image = ['node', ...botCommand('compiled', 'index')];
expect(JSON.stringify(docker.cmd) === JSON.stringify(image), `the Dockerfile's CMD is what this check starts: ${image.join(' ')}`, docker.cmd);

const dataDir = mkdtempSync(join(tmpdir(), 'feedbot-prod-smoke-'));
const metricsPort = await freePort();
const running: { stack?: Stack } = {};
// The bot runs in its own process group: when prod-steps.sh's time limit ends this run, take it along.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    running.stack?.bot?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(1);
  });
}
const stack = await Stack.start({
  dataDir,
  logger: silentLogger(),
  launch: 'compiled',
  botDir: appDir,
  botEnv: { METRICS_PORT: String(metricsPort) },
});
running.stack = stack;
try {
  const deployed = await stack.deployCommands();
  expect(/Registered 5 commands/.test(deployed), 'deploy-commands from the production install registers the 5 commands (feed, stats, apikey, feedbot and the message command Feed of this post)', deployed);

  const bot = await stack.startBot(60_000);
  expect(true, `the bot (node --enable-source-maps dist/src/index.js) logged ready, pid ${bot.child.pid}`);
  await waitForReadyz(metricsPort, 20_000);
  expect(true, `GET /readyz on METRICS_PORT ${metricsPort} answers 200`);
  expect((await healthcheck(docker.healthcheck, metricsPort)) === 0, "the Dockerfile's HEALTHCHECK passes (/healthz)");

  const admin = { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS, guildId: DEMO_GUILD_ID };
  const opened = await control<InteractionSnapshot>(stack, 'POST', '/interactions', { type: 'command', commandName: 'apikey', subcommand: 'set', ...admin });
  const form = await control<InteractionSnapshot>(stack, 'POST', `/interactions/${opened.id}/wait?for=ack&timeoutMs=10000`);
  expect(form.ack?.type === 9, '/apikey set opens the key form', form.ack);
  const submitted = await control<InteractionSnapshot>(stack, 'POST', `/interactions/${opened.id}/modal-submit`, { values: { key: stack.demoKey }, ...admin });
  const saved = await waitFinal(stack, submitted.id);
  expect(answerText(saved).includes('API key saved'), 'the key is checked against the sandbox and stored (SQLite, encrypted)', answerText(saved));

  const member = { userId: MEMBER_USER_ID, permissions: MEMBER_PERMISSIONS, guildId: DEMO_GUILD_ID };
  const sent = await control<InteractionSnapshot>(stack, 'POST', '/interactions', { type: 'command', commandName: 'stats', ...member });
  const stats = await waitFinal(stack, sent.id);
  expect(answerText(stats).includes('Forwarding statistics'), '/stats is answered with the statistics embed', answerText(stats));

  const violations = await control<unknown[]>(stack, 'GET', '/violations');
  expect(violations.length === 0, 'the emulator saw no reply Discord would reject', violations);

  const result = await bot.stop();
  expect(bot.lines.some((l) => l.msg === 'stopped') && result.code === 0, 'SIGTERM stops the bot cleanly (exit 0)', { ...result, stderr: bot.stderr.join('').slice(-500) });
  expect((await healthcheck(docker.healthcheck, metricsPort)) !== 0, "the HEALTHCHECK fails once the bot is gone");

  // npm run start:sharded from the production install: the manager finds dist/src/index.js beside
  // it, one process per shard, the host's ops listener on METRICS_PORT.
  const host = stack.spawnBot({ entry: 'sharded', env: { SHARD_COUNT: '2', METRICS_PORT: String(metricsPort) } });
  await host.waitForLog((l) => l.msg === 'every shard process is ready', 60_000);
  // Each shard process writes its own lines to the shared pipe: the second 'ready' may be read
  // just after the manager's line.
  const bothReady = await host.waitForLog(() => host.lines.filter((l) => l.msg === 'ready').length === 2, 10_000).then(() => true, () => false);
  expect(bothReady, 'node dist/src/sharded.js starts one process per shard (2), each logs ready');
  await waitForReadyz(metricsPort, 20_000);
  const readyz = (await (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).json()) as { shards: Record<string, string> };
  expect(readyz.shards['0'] === 'Ready' && readyz.shards['1'] === 'Ready', "the manager's /readyz reports both shards Ready", readyz);
  const again = await control<InteractionSnapshot>(stack, 'POST', '/interactions', { type: 'command', commandName: 'stats', ...member });
  expect(answerText(await waitFinal(stack, again.id)).includes('Forwarding statistics'), '/stats is answered by the shard process that owns the guild, with the stored key');
  const hostResult = await host.stop();
  expect(host.lines.some((l) => l.msg === 'stopped') && hostResult.code === 0, 'SIGTERM stops the manager and its shard processes cleanly (exit 0)', { ...hostResult, stderr: host.stderr.join('').slice(-500) });

  // INTERACTIONS_MODE=http from the production install: the emulator checks the endpoint as the
  // Developer Portal does, then delivers signed POSTs to it.
  const httpPort = await freePort();
  const httpBot = stack.spawnBot({ env: { INTERACTIONS_MODE: 'http', DISCORD_PUBLIC_KEY: stack.emulator.publicKey, HOST: '127.0.0.1', PORT: String(httpPort) } });
  await httpBot.waitForLog((l) => l.msg === 'ready' && l.mode === 'http', 30_000);
  await stack.emulator.setInteractionsEndpoint(`http://127.0.0.1:${httpPort}/interactions`);
  expect(true, 'the compiled bot in http mode passes the endpoint checks (bad signature refused, PING answered)');
  const overHttp = await control<InteractionSnapshot>(stack, 'POST', '/interactions', { type: 'command', commandName: 'stats', ...member });
  expect(answerText(await waitFinal(stack, overHttp.id)).includes('Forwarding statistics'), '/stats is answered over HTTP (signed POST /interactions, answer in the HTTP response)');
  expect(stack.emulator.deliveries.some((d) => d.interactionId === overHttp.id && d.status === 200), 'the emulator delivered it over HTTP');
  await stack.emulator.setInteractionsEndpoint(null);
  const httpResult = await httpBot.stop();
  expect(httpResult.code === 0, 'SIGTERM stops the http-mode bot cleanly (exit 0)', { ...httpResult, stderr: httpBot.stderr.join('').slice(-500) });
} finally {
  await stack.close();
  rmSync(dataDir, { recursive: true, force: true });
}
say('passed');
