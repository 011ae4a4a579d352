/**
 * The listeners of the real bot (`npm start`, INTERACTIONS_MODE=http, METRICS_PORT) against the
 * emulator and the sandbox.
 *
 * A request line no URL parser accepts, on the ops port or on POST /interactions's PORT, gets 400
 * at once and nothing above debug, not a socket held until Node's 408 (~39 s) with an error line
 * and a stack each time.
 * SIGTERM while a client dribbles a chunked body: the drain is bounded, or the orchestrator's
 * SIGKILL would kill the interactions in flight. The process exits within ~10 s (a 5 s grace
 * period answering as usual, then at most 5 s of drain), and an interaction in flight (its feed
 * API call made slow) still gets its answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, freePort, Stack, type BotProcess } from '@feedbot/playground';
import { silentLogger } from '../../src/logger.js';
import { SlowProxy } from './slow-proxy.js';
import { collect, open, rawRequest } from '../http/raw-client.js';

const admin = { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS };

let dir: string;
let stack: Stack;
let proxy: SlowProxy;
let bot: BotProcess;
let metricsPort: number;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'feedbot-http-listeners-'));
  metricsPort = await freePort();
  stack = await Stack.start({ dataDir: dir, logger: silentLogger(), transport: 'http', botEnv: { METRICS_PORT: String(metricsPort), SHUTDOWN_GRACE_MS: '' } });
  const sandboxPort = Number(new URL(stack.env.FEED_API_URL!).port);
  const started = await SlowProxy.start(sandboxPort);
  proxy = started.proxy;
  stack.env.FEED_API_URL = `https://127.0.0.1:${started.port}`;
  await stack.deployCommands();
  bot = (await stack.startBot()) as BotProcess;
  port = Number(stack.env.PORT);
  const opened = await stack.emulator.sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'set', ...admin }).waitForAck();
  const saved = await stack.emulator.submitModal({ interactionId: opened.id, values: { key: stack.demoKey }, ...admin }).waitForFinal({ timeoutMs: 15_000 });
  expect(JSON.stringify(saved.original)).toMatch(/API key saved/);
  // The bot logs an interaction once its work is done, which can be after the emulator saw the
  // answer: wait for that line, so the first test's "no line above debug" sees only its own.
  await bot.waitForLog((l) => l.msg === 'interaction' && l.interactionId === saved.id, 10_000);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await proxy?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('the real bot in HTTP mode', () => {
  it('answers request lines it cannot parse with 400 at once on PORT and METRICS_PORT, without an error line', async () => {
    const before = bot.lines.length;
    for (const listener of [port, metricsPort]) {
      for (const line of ['GET //x:99999/ HTTP/1.1', 'POST http://[ HTTP/1.1', 'GET http://[ HTTP/1.1']) {
        const answer = await rawRequest(listener, `${line}\r\nHost: a\r\nContent-Length: 0\r\n\r\n`, 3_000);
        expect(answer.statusLine, `${line} on port ${listener}`).toBe('HTTP/1.1 400 Bad Request');
        expect(answer.elapsedMs).toBeLessThan(1_000);
      }
    }
    // Let any line the requests caused reach the pipe, then read them all.
    await new Promise((r) => setTimeout(r, 300));
    const written = bot.lines.slice(before);
    expect(written.filter((l) => Number(l.level) > 20)).toEqual([]);
    expect(JSON.stringify(written)).not.toMatch(/"stack"/);
    expect(bot.running).toBe(true);
  });

  it('SIGTERM while a client dribbles a chunked body: the interaction in flight is answered and the process exits within ~10 s', async () => {
    // The dribbling client: headers, then one chunk a second, forever.
    const slow = await open(port);
    const slowAnswer = collect(slow, 30_000, false);
    slow.write('POST /interactions HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nX-Signature-Ed25519: 00\r\nX-Signature-Timestamp: 1\r\nTransfer-Encoding: chunked\r\n\r\n');
    const drip = setInterval(() => slow.writable && slow.write('1\r\na\r\n'), 1_000);

    try {
      // A command whose feed API call takes 2 s: still running when SIGTERM arrives.
      proxy.delayMs = 2_000;
      const heldBefore = proxy.held;
      const inFlight = stack.emulator.sendInteraction({ type: 'command', commandName: 'stats', ...admin });
      const deadline = Date.now() + 10_000;
      while (proxy.held === heldBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(proxy.held, 'the command called the feed API').toBeGreaterThan(heldBefore);

      const signalledAt = Date.now();
      bot.kill('SIGTERM');
      const exited = await Promise.race([bot.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 15_000))]);
      const tookMs = Date.now() - signalledAt;
      expect(exited, 'the bot exited after SIGTERM').not.toBe('running');
      expect(exited).toMatchObject({ code: 0 });
      // The grace period (SHUTDOWN_GRACE_MS left empty: the default 5 s, during which the endpoint
      // answers as usual while /readyz says 503), then the
      // drain (5 s at most: the dribbling client is cut), then the bot's own stop.
      expect(tookMs).toBeLessThan(14_000);

      const answered = await inFlight.waitForFinal({ timeoutMs: 5_000 });
      expect(answered.errors).toEqual([]);
      const shown = JSON.stringify([answered.original, ...answered.followUps]);
      expect(shown).not.toMatch(/no feed API key yet|something went wrong|try again/i);
      expect(shown).toMatch(/feed/i);
      expect((await slowAnswer).closed, 'the dribbling client was cut').toBe(true);
      expect(bot.lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
    } finally {
      clearInterval(drip);
      slow.destroy();
      proxy.delayMs = 0;
    }
  }, 60_000);
});
