/**
 * OpenTelemetry end to end: the real bot (`npm start`) with OTEL_EXPORTER_OTLP_ENDPOINT set sends
 * its spans over OTLP/HTTP (JSON) to a receiver here. One `/feed list` whose feed API answer is
 * slow (so the bot defers, then edits) yields one trace: the interaction's span, and as its
 * children the key store read, the feed API request and the Discord calls (deferral, edit); the
 * interaction's log line carries that trace's ids. Without the variable, the process resolves no
 * OpenTelemetry module at all (a resolve hook records every module the bot loads).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PERMISSIONS, ADMIN_USER_ID, MEMBER_PERMISSIONS, MEMBER_USER_ID, Stack, type BotProcess } from '@feedbot/playground';
import { silentLogger } from '../../src/logger.js';
import { SlowProxy } from './slow-proxy.js';
import { OtlpReceiver as Receiver, attr } from '../helpers/otlp-receiver.js';

const admin = { userId: ADMIN_USER_ID, permissions: ADMIN_PERMISSIONS };
const member = { userId: MEMBER_USER_ID, permissions: MEMBER_PERMISSIONS };
const RECORD_IMPORTS = pathToFileURL(join(import.meta.dirname, 'fixtures', 'record-imports.mjs')).href;

async function eventually<T>(what: string | (() => string), timeoutMs: number, check: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${typeof what === 'string' ? what : what()}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let dir: string;
let stack: Stack;
let proxy: SlowProxy;
let receiver: Receiver;
let bot: BotProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'feedbot-e2e-traces-'));
  const started = await Receiver.start();
  receiver = started.receiver;
  stack = await Stack.start({
    dataDir: join(dir, 'stack'),
    logger: silentLogger(),
    botEnv: {
      OTEL_EXPORTER_OTLP_ENDPOINT: started.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'feedbot-e2e',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      NODE_OPTIONS: `--import=${RECORD_IMPORTS}`,
      FEEDBOT_RECORD_IMPORTS: join(dir, 'imports-traced.txt'),
    },
  });
  const sandboxPort = Number(new URL(stack.env.FEED_API_URL!).port);
  const slow = await SlowProxy.start(sandboxPort);
  proxy = slow.proxy;
  stack.env.FEED_API_URL = `https://127.0.0.1:${slow.port}`;
  await stack.deployCommands();
  bot = (await stack.startBot()) as BotProcess;
  const opened = await stack.emulator.sendInteraction({ type: 'command', commandName: 'apikey', subcommand: 'set', ...admin }).waitForAck();
  await stack.emulator.submitModal({ interactionId: opened.id, values: { key: stack.demoKey }, ...admin }).waitForFinal({ timeoutMs: 15_000 });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await proxy?.close();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('traces over OTLP', () => {
  it('one slow /feed list is one trace: interaction, key store read, feed API request, deferral and edit; its log line carries the ids', async () => {
    // Every chunk the bot sends the feed API waits 1.8 s: past the 1.5 s after which it defers.
    proxy.delayMs = 1_800;
    const done = await stack.emulator.sendInteraction({ type: 'command', commandName: 'feed', subcommand: 'list', ...member }).waitForFinal({ timeoutMs: 20_000 });
    proxy.delayMs = 0;
    expect(done.ack?.type).toBe(5);

    const root = await eventually('the interaction span', 10_000, () => receiver.spans.find((s) => attr(s, 'discord.interaction.id') === done.id && s.name.startsWith('interaction ')));
    expect(root.name).toBe('interaction feed list');
    expect(root.parentSpanId ?? '').toBe('');
    expect(root.kind).toBe(2); // SERVER
    expect(attr(root, 'feedbot.command')).toBe('feed list');
    expect(attr(root, 'feedbot.outcome')).toBe('ok');
    expect(attr(root, 'feedbot.deferred')).toBe(true);

    // The children arrive in the same or a later batch than the parent (they end first).
    const trace = () => receiver.spans.filter((s) => s.traceId === root.traceId).map((s) => `${s.name} [${String(attr(s, 'feedbot.discord.call') ?? '')}] parent=${s.parentSpanId === root.spanId ? 'root' : (s.parentSpanId ?? '-')}`);
    const children = await eventually(() => `the discord edit span (the trace: ${trace().join('; ')})`, 10_000, () => {
      const mine = receiver.spans.filter((s) => s.traceId === root.traceId && s.parentSpanId === root.spanId);
      return mine.some((s) => attr(s, 'feedbot.discord.call') === 'edit') ? mine : undefined;
    });
    const named = (name: string) => children.filter((s) => s.name === name);
    expect(named('interaction claim')).toHaveLength(1);
    expect(named('key_store get')).toHaveLength(1);
    const api = named('GET /feeds');
    expect(api).toHaveLength(1);
    expect(attr(api[0]!, 'http.response.status_code')).toBe(200);
    expect(api[0]!.kind).toBe(3); // CLIENT
    const calls = children.filter((s) => s.name.startsWith('discord ')).map((s) => attr(s, 'feedbot.discord.call'));
    expect(calls).toEqual(expect.arrayContaining(['defer', 'edit']));
    const defer = children.find((s) => attr(s, 'feedbot.discord.call') === 'defer')!;
    expect(defer.name).toBe('discord POST /interactions/{interaction.id}/{interaction.token}/callback');
    expect(attr(defer, 'http.response.status_code')).toBe(204);
    expect(receiver.batches.every((b) => b.contentType === 'application/json' && b.serviceName === 'feedbot-e2e')).toBe(true);

    // The interaction's log line was written inside its span.
    const line = await bot.waitForLog((l) => l.msg === 'interaction' && l.interactionId === done.id, 5_000);
    expect(line.trace_id).toBe(root.traceId);
    expect(line.span_id).toBe(root.spanId);
    // No token, key or secret in anything exported.
    const exported = receiver.raw.join('\n');
    for (const secret of [stack.demoKey, stack.botToken, stack.env.KEY_ENCRYPTION_SECRET!]) expect(exported).not.toContain(secret);
    expect(exported).not.toMatch(/\/interactions\/\d+\/(?!\{)/);
  }, 60_000);

  it('with the variable set the bot resolved OpenTelemetry; without it, no OpenTelemetry module at all', async () => {
    const traced = readFileSync(join(dir, 'imports-traced.txt'), 'utf8');
    expect(traced).toContain('/@opentelemetry/sdk-trace-node/');
    expect(traced).toContain('/@opentelemetry/exporter-trace-otlp-http/');
    // Only the exporter asked for.
    expect(traced).not.toContain('/@opentelemetry/exporter-trace-otlp-proto/');
    await bot.stop();

    const plainImports = join(dir, 'imports-plain.txt');
    writeFileSync(plainImports, '');
    const plain = stack.spawnBot({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_PROTOCOL: '', NODE_OPTIONS: `--import=${RECORD_IMPORTS}`, FEEDBOT_RECORD_IMPORTS: plainImports },
    });
    await plain.waitForLog((l) => l.msg === 'ready', 30_000);
    const answered = await stack.emulator.sendInteraction({ type: 'command', commandName: 'stats', ...member }).waitForFinal({ timeoutMs: 15_000 });
    expect(answered.ack).toBeDefined();
    const line = await plain.waitForLog((l) => l.msg === 'interaction' && l.interactionId === answered.id, 5_000);
    expect(line.trace_id).toBeUndefined();
    await plain.stop();
    const loaded = readFileSync(plainImports, 'utf8');
    // The hook saw the bot's own modules (the check can fail), and nothing of OpenTelemetry.
    expect(loaded).toMatch(/\/src\/tracing\/tracer\.(ts|js)/);
    expect(loaded).not.toContain('@opentelemetry');
  }, 90_000);
});
