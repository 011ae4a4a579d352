/**
 * The per-interaction record behind the log line's `upstreamStatus`: filled from the API client's
 * response events, one AsyncLocalStorage scope per interaction.
 */
import { describe, expect, it } from 'vitest';
import type { ResponseEvent, ResponseListener } from '../../src/api/response-events.js';
import { trackUpstream } from '../../src/interactions/upstream-scope.js';
import { createBotHarness, rl } from '../helpers/bot.js';
import { chatInput } from '../helpers/discord.js';

/** A stand-in for the client's hook: `emit` plays the request layer. */
function fakeSource() {
  const listeners: ResponseListener[] = [];
  return {
    onResponse(listener: ResponseListener) {
      listeners.push(listener);
      return () => undefined;
    },
    emit(outcome: Pick<ResponseEvent, 'kind'> & Partial<ResponseEvent>) {
      const event = { route: 'getStats', method: 'GET', attempt: 1, retrying: false, latencyMs: 1, remaining: null, joined: false, ...outcome };
      for (const l of listeners) l(event as ResponseEvent);
    },
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('trackUpstream', () => {
  it('records the last status answered within the scope; null when none reached the API', async () => {
    const source = fakeSource();
    const upstream = trackUpstream(source);
    const seen = await upstream.run(async () => {
      const before = upstream.lastStatus();
      await tick();
      source.emit({ kind: 'status', status: 503 });
      await tick();
      source.emit({ kind: 'status', status: 200 });
      return [before, upstream.lastStatus()];
    });
    expect(seen).toEqual([null, 200]);
  });

  it('a local refusal, a time-out or a failed connection is no upstream status', async () => {
    const source = fakeSource();
    const upstream = trackUpstream(source);
    const last = await upstream.run(async () => {
      source.emit({ kind: 'status', status: 404 });
      source.emit({ kind: 'refused', resetAt: new Date() });
      source.emit({ kind: 'timeout' });
      source.emit({ kind: 'connection', systemCode: 'ECONNRESET' });
      return upstream.lastStatus();
    });
    expect(last).toBe(404);
    const refusedOnly = upstream.run(() => {
      source.emit({ kind: 'refused', resetAt: new Date() });
      return upstream.lastStatus();
    });
    expect(refusedOnly).toBeNull();
  });

  it('concurrent interactions keep apart: each scope sees only its own responses', async () => {
    const source = fakeSource();
    const upstream = trackUpstream(source);
    const interaction = (status: number, delayMs: number) =>
      upstream.run(async () => {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        source.emit({ kind: 'status', status });
        await new Promise((resolve) => setTimeout(resolve, 30 - delayMs));
        return upstream.lastStatus();
      });
    await expect(Promise.all([interaction(401, 5), interaction(200, 15)])).resolves.toEqual([401, 200]);
  });

  it('responses outside any scope are ignored', () => {
    const source = fakeSource();
    const upstream = trackUpstream(source);
    source.emit({ kind: 'status', status: 500 });
    expect(upstream.lastStatus()).toBeNull();
    expect(upstream.run(() => upstream.lastStatus())).toBeNull();
  });
});

describe('through the router', () => {
  it('two interactions sharing one GET in flight both log the status it got; the request is sent once', async () => {
    const h = await createBotHarness();
    try {
      await h.setKey();
      const stats = { servidor: '1', plan: 'server', feedsActivos: 0, feedsPausados: 0, postsHoy: 0, postsEstaSemana: 0, cuentaMasActiva: null, ultimaActividad: null };
      h.api.intercept({ path: '/v1/stats', method: 'GET' }).reply(200, stats, { headers: rl() }).delay(50);
      await Promise.all([h.run(chatInput('stats', undefined)), h.run(chatInput('stats', undefined))]);
      const lines = h.logs.filter((l) => l.msg === 'interaction');
      expect(lines.map((l) => [l.outcome, l.upstreamStatus])).toEqual([
        ['ok', 200],
        ['ok', 200],
      ]);
      h.agent.assertNoPendingInterceptors();
    } finally {
      await h.close();
    }
  });
});
