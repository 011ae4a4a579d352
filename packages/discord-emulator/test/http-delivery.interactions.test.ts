/**
 * Interactions delivered over HTTP: signed POSTs to the Interactions Endpoint, whose answer is the
 * initial response, checked like a callback (OpenAPI included) within the 3-second deadline; 202
 * plus the callback route; follow-ups, components, autocomplete and multipart answers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NoGatewaySessionError, type DiscordEmulator } from '../src/index.js';
import { APP_ID, GUILD_ID, SIMPLE_COMMANDS, startTestEmulator } from './helpers.js';
import { startTestEndpoint, type TestEndpoint } from './interactions-endpoint.js';

let emu: DiscordEmulator;
let ep: TestEndpoint;

beforeAll(async () => {
  // No discord.js client at all: over HTTP, the bot needs no gateway connection.
  emu = await startTestEmulator({ ackDeadlineMs: 1000 });
  emu.setCommands(SIMPLE_COMMANDS, GUILD_ID);
  ep = await startTestEndpoint({ publicKey: () => emu.publicKey });
  await emu.setInteractionsEndpoint(ep.url);
});

afterAll(async () => {
  await emu?.close();
  await ep?.close();
});

beforeEach(() => {
  emu.clearRecords();
  ep.requests.length = 0;
});

const post = (path: string, body: unknown, method = 'POST') =>
  fetch(`${emu.restUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const kinds = () => emu.violations.map((v) => v.kind);
const lastDelivery = () => emu.deliveries.filter((d) => d.kind === 'interaction').at(-1);

describe('delivery', () => {
  it('POSTs the interaction, signed, and the answer is the reply', async () => {
    ep.handle((i) => ({ body: { type: 4, data: { content: `pong ${i.type}` } } }));
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitForFinal();
    expect(s).toMatchObject({ state: 'acknowledged', ack: { type: 4, withResponse: false }, shardId: null, dispatchedTo: [], callbacks: 1 });
    expect(s.original?.content).toBe('pong 2');
    const [req] = ep.requests;
    expect(req).toMatchObject({ verified: true, aborted: false });
    expect(JSON.parse(req!.raw)).toEqual(h.payload);
    expect(req!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'Discord-Interactions/1.0 (+https://discord.com)' });
    expect(lastDelivery()).toMatchObject({ interactionId: h.id, status: 200, outcome: 'accepted', answer: { type: 4 } });
    expect(emu.violations).toEqual([]);
  });

  it('follow-ups and @original edits work after a deferred answer', async () => {
    ep.handle((i) => {
      setTimeout(() => {
        void post(`/webhooks/${APP_ID}/${i.token}/messages/@original`, { content: 'done' }, 'PATCH').then(() =>
          post(`/webhooks/${APP_ID}/${i.token}`, { content: 'and more' }),
        );
      }, 20);
      return { body: { type: 5, data: { flags: 64 } } };
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitFor((x) => x.followUps.length === 1);
    expect(s.ack?.type).toBe(5);
    expect(s.original).toMatchObject({ content: 'done', flags: 64 });
    expect(s.followUps[0]?.content).toBe('and more');
    expect(emu.violations).toEqual([]);
  });

  it('202 without a body after the callback route: documented by Discord, and accepted', async () => {
    ep.handle(async (i) => {
      const res = await post(`/interactions/${i.id}/${i.token}/callback`, { type: 4, data: { content: 'via callback' } });
      expect(res.status).toBe(204);
      return { status: 202 };
    });
    const s = await emu.sendInteraction({ type: 'command', commandName: 'ping' }).waitForFinal();
    expect(s.original?.content).toBe('via callback');
    expect(s.callbacks).toBe(1);
    expect(lastDelivery()?.outcome).toBe('deferred');
    expect(emu.violations).toEqual([]);
  });

  it('an interaction response in the answer after the callback route: a second response, refused with 40060; both counted', async () => {
    ep.handle(async (i) => {
      expect((await post(`/interactions/${i.id}/${i.token}/callback`, { type: 4, data: { content: 'via callback' } })).status).toBe(204);
      return { body: { type: 4, data: { content: 'in the answer' } } };
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await expect.poll(() => lastDelivery()?.outcome).toBe('refused');
    expect(h.snapshot()).toMatchObject({ state: 'acknowledged', callbacks: 2, original: { content: 'via callback' } });
    expect(emu.violations).toMatchObject([{ kind: 'already_acknowledged', code: 40060, route: '<interactions endpoint>', interactionId: h.id }]);
  });

  it('buttons and autocomplete go to the endpoint too', async () => {
    ep.handle(() => ({ body: { type: 4, data: { content: 'pick', components: [{ type: 1, components: [{ type: 2, style: 1, custom_id: 'go', label: 'Go' }] }] } } }));
    const first = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    await first.waitForFinal();
    ep.handle((i) => ({ body: { type: 7, data: { content: `pressed by ${i.member?.user.id}`, components: [] } } }));
    const press = first.pressButton('go');
    const pressed = await press.waitForFinal();
    expect(pressed.original).toMatchObject({ id: first.snapshot().original?.id, content: `pressed by ${press.payload.member?.user.id}` });
    ep.handle(() => ({ body: { type: 8, data: { choices: [{ name: 'nasa', value: 'nasa' }] } } }));
    const auto = emu.sendInteraction({ type: 'autocomplete', commandName: 'feed', subcommand: 'add', options: { handle: 'na' }, focused: 'handle' });
    await auto.waitForAck();
    expect(auto.choices()).toEqual([{ name: 'nasa', value: 'nasa' }]);
    expect(ep.requests.map((r) => JSON.parse(r.raw).type)).toEqual([2, 3, 4]);
    expect(emu.violations).toEqual([]);
  });

  it('select presses answered with an update, message commands and modal selects go to the endpoint too', async () => {
    ep.handle(() => ({ body: { type: 4, data: { content: 'panel', components: [{ type: 1, components: [{ type: 8, custom_id: 'channel', channel_types: [0] }] }] } } }));
    const first = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const panel = (await first.waitForFinal()).original!;
    ep.handle((i) => ({ body: { type: 7, data: { content: `filtered by ${JSON.stringify((i.data as { values?: string[] }).values)}` } } }));
    const channelId = panel.channel_id;
    const pressed = await emu.selectMenu({ messageId: panel.id, customId: 'channel', values: [channelId] }).waitForFinal();
    expect(pressed.original).toMatchObject({ id: panel.id, content: `filtered by ["${channelId}"]` });
    const press = JSON.parse(ep.requests.at(-1)!.raw) as { type: number; data: { component_type: number; resolved: { channels: Record<string, unknown> } } };
    expect(press).toMatchObject({ type: 3, data: { component_type: 8, resolved: { channels: { [channelId]: { id: channelId } } } } });

    emu.setCommands([...SIMPLE_COMMANDS, { type: 3, name: 'Feed of this post' }], GUILD_ID);
    ep.handle(() => ({
      body: { type: 9, data: { custom_id: 'pick', title: 'Pick', components: [{ type: 18, label: 'Channel', component: { type: 8, custom_id: 'channel' } }] } },
    }));
    const command = emu.runMessageCommand({ commandName: 'Feed of this post', messageId: panel.id });
    expect((await command.waitForFinal()).ack?.type).toBe(9);
    expect(JSON.parse(ep.requests.at(-1)!.raw)).toMatchObject({ type: 2, data: { type: 3, target_id: panel.id, resolved: { messages: { [panel.id]: { id: panel.id } } } } });
    ep.handle(() => ({ body: { type: 4, data: { content: 'picked' } } }));
    const submit = command.submitModal({ channel: channelId });
    expect((await submit.waitForFinal()).original?.content).toBe('picked');
    expect(JSON.parse(ep.requests.at(-1)!.raw)).toMatchObject({
      type: 5,
      data: { components: [{ type: 18, component: { type: 8, custom_id: 'channel', values: [channelId] } }], resolved: { channels: { [channelId]: { id: channelId } } } },
    });
    expect(emu.violations).toEqual([]);
  });

  it('a multipart answer (payload_json + files) is taken like a callback with files', async () => {
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ type: 4, data: { content: 'a file', attachments: [{ id: '0', filename: 'feeds.txt' }] } }));
    form.append('files[0]', new Blob(['one feed']), 'feeds.txt');
    const encoded = new Response(form);
    const data = Buffer.from(await encoded.arrayBuffer());
    ep.handle(() => ({ raw: { data, contentType: encoded.headers.get('content-type')! } }));
    const s = await emu.sendInteraction({ type: 'command', commandName: 'ping' }).waitForFinal();
    expect(s.original?.attachments.map((a) => a.filename)).toEqual(['feeds.txt']);
    expect(emu.violations).toEqual([]);
  });

  it('with the endpoint unset, interactions go back to the gateway (here: no session to go to)', async () => {
    await emu.setInteractionsEndpoint(null);
    try {
      expect(() => emu.sendInteraction({ type: 'command', commandName: 'ping' })).toThrow(NoGatewaySessionError);
    } finally {
      await emu.setInteractionsEndpoint(ep.url);
    }
  });
});

describe('answers Discord does not take', () => {
  it('a bad response body is a violation and fails the interaction; the callback route cannot rescue it', async () => {
    let token = '';
    ep.handle((i) => {
      token = i.token;
      return { body: { type: 4, data: { content: 'x'.repeat(2001) } } };
    });
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const s = await h.waitFor((x) => x.state === 'expired');
    expect(s.ack).toBeNull();
    expect(emu.violations).toMatchObject([
      { kind: 'invalid_form_body', status: 400, code: 50035, route: '<interactions endpoint>', path: ep.url, interactionId: h.id, errors: { data: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } } },
    ]);
    expect(s.errors).toMatchObject([{ code: 50035, route: '<interactions endpoint>' }]);
    // Recorded once the answer has been dealt with, just after the interaction changed.
    await expect.poll(lastDelivery).toMatchObject({ outcome: 'refused', detail: 'Invalid Form Body' });
    const late = await post(`/interactions/${h.id}/${token}/callback`, { type: 4, data: { content: 'retry' } });
    expect(late.status).toBe(404);
    expect(kinds()).toEqual(['invalid_form_body', 'unknown_interaction']);
  });

  it('what only Discord’s OpenAPI document refuses is a violation too, over HTTP and over the callback route', async () => {
    const bad = { type: 4, data: { content: 'hi', allowed_mentions: { parse: ['nobody'] } } };
    ep.handle(() => ({ body: bad }));
    await emu.sendInteraction({ type: 'command', commandName: 'ping' }).waitFor((x) => x.state === 'expired');
    const parseErrors = { data: { allowed_mentions: { parse: { 0: { _errors: [{ code: 'BASE_TYPE_CHOICES', message: expect.stringContaining('(Discord OpenAPI: AllowedMentionTypes)') }] } } } } };
    expect(emu.violations).toMatchObject([{ kind: 'invalid_form_body', route: '<interactions endpoint>', errors: parseErrors }]);

    let status = 0;
    ep.handle(async (i) => {
      status = (await post(`/interactions/${i.id}/${i.token}/callback`, bad)).status;
      return { status: 202 };
    });
    emu.clearRecords();
    await emu.sendInteraction({ type: 'command', commandName: 'ping' }).waitFor((x) => x.state === 'expired', 3000);
    expect(status).toBe(400);
    expect(emu.violations).toMatchObject([{ kind: 'invalid_form_body', route: '/interactions/:id/:token/callback', errors: parseErrors }, { kind: 'ack_timeout' }]);
  });

  it('a response type the interaction does not allow, an error status, an empty 200: violations', async () => {
    ep.handle(() => ({ body: { type: 8, data: { choices: [] } } }));
    await emu.sendInteraction({ type: 'command', commandName: 'ping' }).waitFor((x) => x.state === 'expired');
    ep.handle(() => ({ status: 500, raw: { data: 'boom', contentType: 'text/plain' } }));
    await emu.sendInteraction({ type: 'command', commandName: 'ping' }).waitFor((x) => x.state === 'expired');
    ep.handle(() => ({ status: 200 }));
    await emu.sendInteraction({ type: 'command', commandName: 'ping' }).waitFor((x) => x.state === 'expired');
    expect(emu.violations.map((v) => [v.kind, v.status, v.message])).toEqual([
      ['invalid_response_type', 400, 'Invalid Form Body'],
      ['interactions_endpoint', 500, 'Interactions Endpoint: answered 500'],
      ['interactions_endpoint', 200, 'Interactions Endpoint: answered 200 without an interaction response'],
    ]);
    await expect.poll(() => emu.deliveries.filter((d) => d.kind === 'interaction').map((d) => [d.status, d.outcome, d.answer])).toEqual([
      [200, 'refused', { type: 8, data: { choices: [] } }],
      [500, 'refused', 'boom'],
      [200, 'refused', null],
    ]);
  });
});

describe('the 3-second rule', () => {
  it('an answer after 3 s: the request is abandoned at the deadline and the interaction expires', async () => {
    const strict = await startTestEmulator(); // Discord's own 3,000 ms
    strict.setCommands(SIMPLE_COMMANDS, GUILD_ID);
    const slow = await startTestEndpoint({ publicKey: () => strict.publicKey });
    try {
      await strict.setInteractionsEndpoint(slow.url);
      slow.handle(() => ({ body: { type: 4, data: { content: 'too late' } }, delayMs: 3300 }));
      const h = strict.sendInteraction({ type: 'command', commandName: 'ping' });
      await expect(h.waitForAck(5000)).rejects.toThrow(/expired/);
      await expect.poll(() => strict.deliveries.at(-1)?.outcome).toBe('timeout');
      expect(strict.deliveries.at(-1)).toMatchObject({ kind: 'interaction', status: 0, interactionId: h.id });
      expect(strict.deliveries.at(-1)!.durationMs).toBeGreaterThanOrEqual(2900);
      // The endpoint notices the abandoned request when its socket closes, a moment later.
      await expect.poll(() => slow.requests.at(-1)?.aborted).toBe(true);
      expect(h.snapshot()).toMatchObject({ state: 'expired', ack: null, original: null });
      expect(strict.violations.map((v) => v.kind)).toEqual(['ack_timeout']);
    } finally {
      await strict.close();
      await slow.close();
    }
  });
});
