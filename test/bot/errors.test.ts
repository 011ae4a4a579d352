/**
 * Every failure the API can produce, for every command family, becomes a clear, ephemeral,
 * localized explanation — and never a stack trace.
 */
import { describe, expect } from 'vitest';
import { MessageFlags } from 'discord.js';
import type { APIInteraction } from 'discord-api-types/v10';
import { buttonPress, chatInput } from '../helpers/discord.js';
import { botTest, rl, sampleFeeds, type BotHarness } from '../helpers/bot.js';

type Body = { type: number; data: { flags?: number; embeds: { description: string }[]; components?: { components: { custom_id: string }[] }[] } };

interface Family {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  scope: string;
  /** Whether a 404 names the feed. */
  namesFeed: boolean;
  retried: boolean;
  /**
   * A write: what the user reads when the answer was lost (a 5xx, a time-out, an unreadable body)
   * and the list that would settle it cannot be read either (no GET is answered here). The write
   * may have been done, so "try again" would be wrong.
   */
  unconfirmed?: string;
  /** Runs the command up to the point where the failing request is sent. */
  start(h: BotHarness, locale?: string): Promise<void>;
}

const families: Family[] = [
  { name: 'feed list', method: 'GET', path: '/v1/feeds', scope: 'feeds:read', namesFeed: false, retried: true, start: (h, locale) => h.run(chatInput('feed', 'list', {}, { locale })) },
  {
    name: 'feed create',
    unconfirmed: 'The feed API did not confirm that the feed for `@nasa` was created, and it is not in the list yet. It may still appear: look at `/feed list` in a minute before creating it again.',
    method: 'POST',
    path: '/v1/feeds',
    scope: 'feeds:write',
    namesFeed: false,
    retried: false,
    start: (h, locale) => h.run(chatInput('feed', 'create', { cuenta: 'nasa', canal: { channel: { id: '1300000000000000009', name: 'x' } }, tipos: 'post' }, { locale })),
  },
  {
    name: 'feed delete',
    unconfirmed: 'The feed API did not confirm whether feed #1 was deleted, and its list could not be read. Look at `/feed list` before trying again.',
    method: 'DELETE',
    path: '/v1/feeds/1',
    scope: 'feeds:write',
    namesFeed: true,
    retried: true,
    async start(h, locale) {
      h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
      await h.run(chatInput('feed', 'delete', { id: 1 }, { locale }));
      const yes = (h.discord.callbacks()[0]!.body as Body).data.components![0]!.components[0]!.custom_id;
      await h.run(buttonPress(yes, { locale }));
    },
  },
  { name: 'feed posts', method: 'GET', path: '/v1/feeds/1/posts?limite=10', scope: 'feeds:read', namesFeed: true, retried: true, start: (h, locale) => h.run(chatInput('feed', 'posts', { id: 1 }, { locale })) },
  { name: 'stats', method: 'GET', path: '/v1/stats', scope: 'stats:read', namesFeed: false, retried: true, start: (h, locale) => h.run(chatInput('stats', undefined, {}, { locale })) },
];

/** The explanation is the last thing sent to Discord: a callback, an edit or a follow-up. */
function lastExplanation(h: BotHarness): { text: string; flags: number | undefined } {
  const call = h.discord.calls.at(-1)!;
  const b = call.body as Record<string, unknown>;
  const data = (call.path.endsWith('/callback') ? (b.data as Record<string, unknown>) : b) as Body['data'];
  return { text: data.embeds[0]!.description, flags: data.flags };
}

// A short API time-out, so the time-out cases run quickly.
botTest.override({ harness: { timeoutMs: 150 } });

describe.each(families)('$name', (f) => {
  const intercept = (h: BotHarness) => h.api.intercept({ path: f.path, method: f.method });

  botTest('400 shows what was invalid, with the API message', async ({ bot: h }) => {
    intercept(h).reply(400, { error: { codigo: 'invalid', mensaje: 'tipos must not be empty' } }, { headers: rl() });
    await f.start(h);
    expect(lastExplanation(h)).toEqual({ text: 'The API rejected the request as invalid. The API says: “tipos must not be empty”', flags: MessageFlags.Ephemeral });
  });

  botTest('400 in Spanish: our sentence, the API text only as a quoted detail', async ({ bot: h }) => {
    intercept(h).reply(400, { error: { codigo: 'invalid', mensaje: 'Parámetros no válidos' } }, { headers: rl() });
    await f.start(h, 'es-ES');
    expect(lastExplanation(h).text).toBe('La API rechazó la petición por no ser válida. La API dice: «Parámetros no válidos»');
  });

  botTest('401 says the key is invalid or regenerated and an admin must set the new one', async ({ bot: h }) => {
    intercept(h).reply(401, '', { headers: rl() });
    await f.start(h);
    expect(lastExplanation(h).text).toMatch(/invalid or was regenerated\. An admin must set the new key with `\/apikey set`/);
    expect(h.logs.find((l) => l.msg === 'interaction' && l.outcome === 'api_401')).toMatchObject({ upstreamStatus: 401 });
  });

  botTest('403 names the scope the command needs and how to get it', async ({ bot: h }) => {
    intercept(h).reply(403, { detail: 'forbidden' }, { headers: rl() });
    await f.start(h, 'es-ES');
    expect(lastExplanation(h).text).toContain(`le falta el permiso \`${f.scope}\``);
    expect(lastExplanation(h).flags).toBe(MessageFlags.Ephemeral);
  });

  botTest('403 for a server not on the required plan says so instead of naming a scope', async ({ bot: h }) => {
    intercept(h).reply(403, { error: { codigo: 'plan_required', mensaje: 'La API solo está disponible en el plan server' } }, { headers: rl() });
    await f.start(h);
    expect(lastExplanation(h).text).toMatch(/^The feed API is only available on the `server` plan/);
  });

  botTest('404', async ({ bot: h }) => {
    intercept(h).reply(404, { error: 'nope' }, { headers: rl() });
    await f.start(h);
    expect(lastExplanation(h).text).toBe(f.namesFeed ? 'Feed #1 does not exist in this server.' : 'The API could not find what was asked for.');
  });

  botTest('429 says when the window resets, with Discord timestamps from X-RateLimit-Reset', async ({ bot: h }) => {
    const reset = Math.floor(Date.now() / 1000) + 42;
    intercept(h).reply(429, { error: 'slow down' }, { headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) } });
    await f.start(h);
    expect(lastExplanation(h).text).toBe(
      `This server used its 100 requests per minute to the feed API. The limit resets <t:${reset}:R> (at <t:${reset}:T>); try again then.`,
    );
  });

  botTest(`5xx ${f.retried ? 'is retried, then' : 'is not retried (POST), and'} explained`, async ({ bot: h }) => {
    intercept(h).reply(503, 'upstream down', { headers: rl() }).times(f.retried ? 3 : 1);
    await f.start(h);
    expect(lastExplanation(h).text).toBe(f.unconfirmed ?? 'The feed API had an internal error (503). Try again in a moment.');
    expect(h.logs.filter((l) => l.msg === 'interaction').at(-1)).toMatchObject({ outcome: 'api_503' });
  });

  botTest('a time-out is explained', async ({ bot: h }) => {
    intercept(h).reply(200, {}, { headers: rl() }).delay(400).times(f.retried ? 3 : 1);
    await f.start(h);
    expect(lastExplanation(h).text).toBe(f.unconfirmed ?? 'The feed API did not answer in time. Try again in a moment.');
  });

  botTest('a connection failure is explained', async ({ bot: h }) => {
    intercept(h).replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).times(f.retried ? 3 : 1);
    await f.start(h);
    expect(lastExplanation(h).text).toBe('The feed API cannot be reached right now. Try again in a moment.');
  });

  botTest('a response that does not match the spec gets a reference id, logged too', async ({ bot: h }) => {
    intercept(h).reply(f.method === 'POST' ? 201 : 200, { unexpected: true }, { headers: rl() });
    await f.start(h);
    const { text } = lastExplanation(h);
    const ref = /`([A-Z0-9]{8})`/.exec(text)?.[1];
    expect(ref).toBeDefined();
    expect(text).toMatch(f.unconfirmed ? `${f.unconfirmed} Reference: \`${ref}\`.` : /does not match its specification/);
    expect(h.logs.some((l) => l.msg === 'interaction' && l.ref === ref && l.outcome === 'api_invalid_response')).toBe(true);
  });

  botTest('no key configured: tells an admin to run /apikey set, sends nothing', async ({ bot: h }) => {
    if (f.name === 'feed delete') return; // covered: delete asks for the key before the confirmation
    await h.keys.delete('1100000000000000001');
    await f.start(h);
    expect(lastExplanation(h).text).toMatch(/no feed API key yet/);
  });
});

describe('unexpected failures', () => {
  botTest('never show a stack trace, and the process keeps serving', async ({ bot: h }) => {
    // A key store that throws a programming error.
    const broken = h.keys.get.bind(h.keys);
    h.keys.get = () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'apiKey')"));
    await h.run(chatInput('stats', undefined) as APIInteraction);
    const { text, flags } = lastExplanation(h);
    expect(flags).toBe(MessageFlags.Ephemeral);
    expect(text).toMatch(/^Something unexpected went wrong\. Reference: `[A-Z0-9]{8}`\.$/);
    const line = h.logs.find((l) => l.msg === 'interaction')!;
    expect(line).toMatchObject({ outcome: 'error', level: 50, err: expect.objectContaining({ stack: expect.stringContaining('TypeError') }) });
    h.keys.get = broken;
    h.api.intercept({ path: '/v1/feeds', method: 'GET' }).reply(200, sampleFeeds, { headers: rl() });
    await h.run(chatInput('feed', 'list'));
    expect(h.logs.filter((l) => l.msg === 'interaction').at(-1)).toMatchObject({ outcome: 'ok' });
  });
});
