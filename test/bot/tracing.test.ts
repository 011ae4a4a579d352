/**
 * Spans of an interaction, with the real OpenTelemetry SDK exporting over OTLP/HTTP (JSON) to a
 * receiver on loopback, on both transports (this folder runs once over the gateway and once over
 * POST /interactions): the interaction is the root, the key store read, the feed API request and
 * each Discord call are its children, across the deferral; its log line carries the ids; a failed
 * feed API request is an error span. The end-to-end version with the real process is
 * test/e2e/traces.test.ts.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { startTracing, type Tracing } from '../../src/tracing/tracer.js';
import { botTest, rl, sampleFeeds } from '../helpers/bot.js';
import { chatInput } from '../helpers/discord.js';
import { OtlpReceiver, attr, type OtlpSpan } from '../helpers/otlp-receiver.js';

let receiver: OtlpReceiver;
let tracing: Tracing | undefined;

beforeAll(async () => {
  const started = await OtlpReceiver.start();
  receiver = started.receiver;
  // The batch processor reads its delay when it is made: spans leave within 50 ms.
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: started.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' } as Parameters<typeof startTracing>[0], silentLogger());
  expect(tracing).toBeDefined();
});

afterAll(async () => {
  await tracing?.shutdown();
  await receiver?.close();
  delete process.env.OTEL_BSP_SCHEDULE_DELAY;
});

/** The interaction's span and its children, once the child `until` names has arrived. */
async function traceOf(interactionId: string, until: (children: OtlpSpan[]) => boolean): Promise<{ root: OtlpSpan; children: OtlpSpan[] }> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const root = receiver.spans.find((s) => attr(s, 'discord.interaction.id') === interactionId);
    const children = root ? receiver.spans.filter((s) => s.traceId === root.traceId && s.parentSpanId === root.spanId) : [];
    if (root && until(children)) return { root, children };
    if (Date.now() > deadline) throw new Error(`no complete trace for ${interactionId}: ${receiver.spans.map((s) => s.name).join(', ')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('an interaction as a trace', () => {
  botTest.override({ harness: { deferAfterMs: 20 } });

  botTest('a deferred /feed list: root span, then key store read, GET /feeds, deferral and edit as its children', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() }).delay(150);
    const raw = chatInput('feed', 'list');
    await h.run(raw);

    const { root, children } = await traceOf(raw.id, (c) => c.some((s) => attr(s, 'feedbot.discord.call') === 'edit'));
    expect(root).toMatchObject({ name: 'interaction feed list', kind: 2 });
    expect(root.parentSpanId ?? '').toBe('');
    expect(attr(root, 'feedbot.outcome')).toBe('ok');
    expect(attr(root, 'feedbot.deferred')).toBe(true);
    // (And, here without a gateway cache, the channel names' lookup: GET /guilds/{id}/channels.)
    expect(children.map((s) => s.name)).toEqual(
      expect.arrayContaining([
        'GET /feeds',
        'discord PATCH /webhooks/{application.id}/{interaction.token}/messages/@original',
        'discord POST /interactions/{interaction.id}/{interaction.token}/callback',
        'key_store get',
      ]),
    );
    const api = children.find((s) => s.name === 'GET /feeds')!;
    expect(attr(api, 'http.response.status_code')).toBe(200);
    expect(attr(api, 'feedbot.api.route')).toBe('listFeeds');
    expect(children.find((s) => s.name.includes('/callback'))!.attributes).toContainEqual({ key: 'feedbot.discord.call', value: { stringValue: 'defer' } });

    const line = h.logs.find((l) => l.msg === 'interaction' && l.interactionId === raw.id)!;
    expect(line).toMatchObject({ trace_id: root.traceId, span_id: root.spanId });
    // Tokens never leave: the interaction's token is in the payload, not in any span.
    expect(receiver.raw.join('\n')).not.toContain(raw.token);
  });

  botTest('a feed API refusal is an error span under an interaction that ended as the user was told', async ({ bot: h }) => {
    h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(403, { error: 'forbidden' }, { headers: rl() });
    const raw = chatInput('stats', undefined);
    await h.run(raw);

    const { root, children } = await traceOf(raw.id, (c) => c.some((s) => s.name === 'GET /stats') && c.some((s) => s.name.startsWith('discord ')));
    const api = children.find((s) => s.name === 'GET /stats')!;
    expect(attr(api, 'http.response.status_code')).toBe(403);
    expect(api.status?.code).toBe(2); // ERROR
    expect(attr(root, 'feedbot.outcome')).toBe('api_403');
    // A refusal the user was told about is not the bot's error.
    expect(root.status?.code ?? 0).not.toBe(2);
    expect(h.logs.find((l) => l.msg === 'interaction' && l.interactionId === raw.id)).toMatchObject({ trace_id: root.traceId });
  });
});
