/**
 * The tracing seam and its configuration: which OTEL_* values start OpenTelemetry and which stop
 * the start with one line, where the spans go, the OTLP/protobuf exporter (the default protocol),
 * Discord paths as span names without their tokens, and the trace ids on log lines.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { discordRouteTemplate } from '../../src/bot/discord-client.js';
import { baseLoggerOptions, silentLogger } from '../../src/logger.js';
import { NOOP_TRACER, installTracer, startTracing, tracer, tracesEndpoint, tracingRequested, type Tracer } from '../../src/tracing/tracer.js';
import { OtlpReceiver } from '../helpers/otlp-receiver.js';

const base = {
  DISCORD_TOKEN: 'MTIwMDAwMDAwMDAwMDAwMDAwMQ.abc.def',
  FEED_API_URL: 'https://api.example.com/v1',
  KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 1).toString('base64'),
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...base, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('OTEL_* configuration', () => {
  it('starts tracing only with an endpoint, and not when the SDK or the exporter is turned off', () => {
    expect(tracingRequested(loadConfig(base))).toBe(false);
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingRequested(loadConfig({ ...base, ...endpoint }))).toBe(true);
    expect(tracingRequested(loadConfig({ ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example/v1/traces' }))).toBe(true);
    expect(tracingRequested(loadConfig({ ...base, ...endpoint, OTEL_SDK_DISABLED: 'true' }))).toBe(false);
    expect(tracingRequested(loadConfig({ ...base, ...endpoint, OTEL_TRACES_EXPORTER: 'none' }))).toBe(false);
    // Empty counts as unset, as everywhere in .env.
    expect(tracingRequested(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: '' }))).toBe(false);
  });

  it('sends to <endpoint>/v1/traces, or to the traces endpoint as given', () => {
    expect(tracesEndpoint(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }))).toBe('http://collector:4318/v1/traces');
    expect(tracesEndpoint(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://gw/otlp' }))).toBe('http://gw/otlp/v1/traces');
    expect(
      tracesEndpoint(loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom/traces' })),
    ).toBe('http://b:4318/custom/traces');
  });

  it('accepts the standard values and refuses the others with one line each', () => {
    const ok = loadConfig({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25', OTEL_SERVICE_NAME: 'feedbot-eu' });
    expect(ok).toMatchObject({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: 0.25 });
    expect(problems({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([expect.stringMatching(/^OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf .*grpc is not supported.*4318/)]);
    expect(problems({ OTEL_TRACES_SAMPLER: 'sometimes' })).toEqual([expect.stringMatching(/^OTEL_TRACES_SAMPLER must be one of always_on/)]);
    expect(problems({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).toEqual(['OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, e.g. 0.1']);
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toEqual([expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT must start with https:\/\/ or http:\/\//)]);
    // A URL can hold credentials: the message never quotes it.
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://user:pw-7q@collector' }).join(' ')).not.toContain('pw-7q');
  });
});

describe('the tracer', () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it('is a plain call when tracing is off', async () => {
    expect(tracer()).toBe(NOOP_TRACER);
    expect(await tracer().inSpan('x', {}, async () => 42)).toBe(42);
    expect(tracer().ids()).toBeUndefined();
  });

  it('puts the current span ids on log lines written inside it, and nothing outside', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write: (c: Buffer, _e, cb) => (lines.push(JSON.parse(c.toString()) as Record<string, unknown>), cb()) });
    const logger = pino(baseLoggerOptions({}), sink);
    logger.info({ a: 1 }, 'outside, tracing off');
    logger.info({ b: 2 }, 'outside again');
    let inside = false;
    const fake: Tracer = {
      enabled: true,
      inSpan: async (_n, _o, fn) => {
        inside = true;
        try {
          return await fn({ set: () => undefined, rename: () => undefined, fail: () => undefined, failed: () => undefined });
        } finally {
          inside = false;
        }
      },
      ids: () => (inside ? { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), trace_flags: '01' } : undefined),
    };
    restore = installTracer(fake);
    await tracer().inSpan('work', {}, async () => logger.info({ c: 3 }, 'inside'));
    logger.info('after');
    expect(lines.map((l) => [l.msg, l.trace_id, l.span_id])).toEqual([
      ['outside, tracing off', undefined, undefined],
      ['outside again', undefined, undefined],
      ['inside', 'a'.repeat(32), 'b'.repeat(16)],
      ['after', undefined, undefined],
    ]);
    expect(lines[2]).toMatchObject({ c: 3, trace_flags: '01' });
  });
});

describe('Discord paths as span names', () => {
  it('keeps the route and drops ids and interaction tokens', () => {
    const token = 'aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OTpTZWNyZXRUb2tlbg';
    expect(discordRouteTemplate(`https://discord.com/api/v10/interactions/1300000000000000009/${token}/callback?with_response=false`)).toBe(
      '/interactions/{interaction.id}/{interaction.token}/callback',
    );
    expect(discordRouteTemplate(`http://127.0.0.1:8787/api/v10/webhooks/1200000000000000001/${token}/messages/%40original`)).toBe(
      '/webhooks/{application.id}/{interaction.token}/messages/@original',
    );
    expect(discordRouteTemplate('https://discord.com/api/v10/channels/1300000000000000001/messages')).toBe('/channels/{id}/messages');
    expect(discordRouteTemplate('https://discord.com/api/v10/guilds/1100000000000000001/channels')).toBe('/guilds/{id}/channels');
  });
});

describe('OTLP over HTTP with protobuf (the default protocol)', () => {
  it('POSTs batches as application/x-protobuf to <endpoint>/v1/traces', async () => {
    const { receiver, url } = await OtlpReceiver.start();
    try {
      const tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: url } as Parameters<typeof startTracing>[0], silentLogger());
      expect(tracing).toBeDefined();
      expect(tracer().enabled).toBe(true);
      await tracer().inSpan('job', { root: true }, async (span) => span.set({ 'feedbot.test': 1 }));
      await tracing!.shutdown();
      expect(tracer()).toBe(NOOP_TRACER);
      expect(receiver.contentTypes).toEqual(['application/x-protobuf']);
    } finally {
      await receiver.close();
    }
  });
});
