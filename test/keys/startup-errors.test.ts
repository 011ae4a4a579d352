/**
 * The real bot (src/index.ts, as `npm start` runs it) started with a DATABASE_URL whose server is
 * down, refuses the password, or never answers: exit 1 and one line on stderr naming the
 * variable, host:port and why, with no stack frame and no password anywhere in the output, not an
 * uncaught exception with source lines (`KeyStoreError: could not list stored keys: 28P01`; on
 * Redis "The client is closed" for both). Real PostgreSQL and Redis
 * servers on loopback (test/keys/backends.ts), a closed port, and a listener that never answers.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { freePort, startPostgres } from '@feedbot/playground';
import { describeBackends, SHARED_BACKENDS } from './backends.js';
import { cleanEnv, runScript, type RunResult } from './cli.js';

const SECRET = Buffer.alloc(32, 9).toString('base64');
const TOKEN = `${Buffer.from('123456789012345678').toString('base64')}.abcdef.${'x'.repeat(27)}`;

function start(databaseUrl: string): Promise<RunResult> {
  return runScript(
    'src/index.ts',
    cleanEnv({ DISCORD_TOKEN: TOKEN, FEED_API_URL: 'https://127.0.0.1:9/v1', KEY_ENCRYPTION_SECRET: SECRET, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }),
    40_000,
  );
}

/** Exit 1, exactly one line on stderr saying `variable`, `where` and `why`; no stack, no password. */
function expectOneLine(result: RunResult, where: string, why: RegExp, password: string): void {
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^DATABASE_URL: /);
  expect(lines[0]).toContain(where);
  expect(lines[0]).toMatch(why);
  const output = result.stdout + result.stderr;
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain(password);
  expect(result.code).toBe(1);
}

/** Accepts connections and never answers: a server that hangs. */
let silent: Server;
let silentPort: number;
const held: Socket[] = [];
beforeAll(async () => {
  silent = createServer((socket) => void held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describeBackends(SHARED_BACKENDS, 'the bot started with a key store it cannot use', (ctx) => {
  const scheme = () => (ctx.kind === 'postgres' ? 'postgres' : 'redis');
  const path = () => (ctx.kind === 'postgres' ? '/feedbot' : '/1');
  const PASSWORD = 'Wrong-Pass-0451';

  test('a wrong password: authentication failed', async () => {
    // The shared test PostgreSQL trusts every connection: this one checks passwords.
    const server = ctx.kind === 'postgres' ? await startPostgres({ passwordAuth: true }) : undefined;
    try {
      const url = new URL(await (server?.newDatabase() ?? ctx.newUrl()));
      url.password = PASSWORD;
      const result = await start(url.toString());
      expectOneLine(result, `${url.hostname}:${url.port}`, /authentication failed/, PASSWORD);
    } finally {
      await server?.stop();
    }
  });

  test('nothing listening on the port: connection refused', async () => {
    const port = await freePort();
    const result = await start(`${scheme()}://bot:${PASSWORD}@127.0.0.1:${port}${path()}`);
    expectOneLine(result, `127.0.0.1:${port}`, /connection refused/, PASSWORD);
  });

  test('a server that never answers: timed out', async () => {
    const result = await start(`${scheme()}://bot:${PASSWORD}@127.0.0.1:${silentPort}${path()}`);
    expectOneLine(result, `127.0.0.1:${silentPort}`, /timed out/, PASSWORD);
  }, 45_000);
});
