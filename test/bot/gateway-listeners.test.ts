/**
 * The one place gateway listeners are subscribed: each event in its listener's root span with a
 * logger named after its feature, a throw that escapes logged (never an unhandled rejection),
 * `settled` waiting for what is under way, `stop` unsubscribing; and the bot's list.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { listenTo, type GatewayListener } from '../../src/bot/gateway-listeners.js';
import { gatewayListeners } from '../../src/listeners.js';
import type { Logger } from '../../src/logger.js';
import { installTracer, NOOP_SPAN, type Tracer } from '../../src/tracing/tracer.js';

function capture(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('listenTo', () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it('runs each event in its root span, with its component, and waits for it in settled', async () => {
    const spans: { name: string; root: boolean | undefined; attributes: unknown }[] = [];
    const fake: Tracer = {
      enabled: true,
      inSpan: (name, opts, fn) => {
        spans.push({ name, root: opts.root, attributes: opts.attributes });
        return fn(NOOP_SPAN);
      },
      ids: () => undefined,
    };
    restore = installTracer(fake);
    const client = new Client({ intents: [GatewayIntentBits.Guilds] });
    const { logger, lines } = capture();
    let release!: () => void;
    const seen: string[] = [];
    const warned: GatewayListener<Events.Warn, { logger: Logger }> = {
      event: Events.Warn,
      component: 'watcher',
      span: 'warned',
      attributes: (message) => ({ 'test.message': message }),
      async run(deps, message) {
        deps.logger.info({ message }, 'heard');
        await new Promise<void>((r) => (release = r));
        seen.push(message);
      },
    };
    const listening = listenTo(client, [warned], { logger });
    client.emit(Events.Warn, 'one');
    let settled = false;
    const waiting = listening.settled().then(() => (settled = true));
    await flush();
    expect(settled).toBe(false);
    release();
    await waiting;
    expect(seen).toEqual(['one']);
    expect(spans).toEqual([{ name: 'warned', root: true, attributes: { 'test.message': 'one' } }]);
    expect(lines.find((l) => l.msg === 'heard')).toMatchObject({ component: 'watcher', message: 'one' });

    listening.stop();
    client.emit(Events.Warn, 'two');
    await listening.settled();
    expect(seen).toEqual(['one']);
    expect(client.listenerCount(Events.Warn)).toBe(0);
  });

  it('logs a throw that escapes a listener once, with the event, and goes on hearing', async () => {
    const client = new Client({ intents: [GatewayIntentBits.Guilds] });
    const { logger, lines } = capture();
    let calls = 0;
    const failing: GatewayListener<Events.Warn, { logger: Logger }> = {
      event: Events.Warn,
      component: 'watcher',
      run: async () => {
        calls++;
        throw new Error('store down');
      },
    };
    const listening = listenTo(client, [failing], { logger });
    client.emit(Events.Warn, 'one');
    client.emit(Events.Warn, 'two');
    await listening.settled();
    expect(calls).toBe(2);
    const errors = lines.filter((l) => l.msg === 'a gateway listener failed');
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ level: 50, component: 'watcher', event: Events.Warn, err: { message: 'store down' } });
    listening.stop();
  });
});

describe("the bot's gateway listeners", () => {
  it('hear deleted channels and roles and servers left and joined, each event once', () => {
    const events = gatewayListeners.map((l) => l.event);
    expect(events.sort()).toEqual([Events.ChannelDelete, Events.GuildCreate, Events.GuildDelete, Events.GuildRoleDelete].sort());
  });
});
