/**
 * Every documented limit: a payload Discord would reject gets 400 here, with a Discord-style
 * body, and is recorded as a violation. Calls go straight to the REST routes (as a bot's REST
 * client would send them) so one logged-in client serves every case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'discord.js';
import type { DiscordEmulator, InteractionHandle } from '../src/index.js';
import { APP_ID, GUILD_ID, SIMPLE_COMMANDS, TOKEN, loginClient, startTestEmulator } from './helpers.js';

let emu: DiscordEmulator;
let client: Client;

beforeAll(async () => {
  // Long deadline: these interactions are never answered in time by anyone but the test.
  emu = await startTestEmulator({ ackDeadlineMs: 60_000 });
  emu.setCommands(SIMPLE_COMMANDS, GUILD_ID);
  client = await loginClient(emu);
});

afterAll(async () => {
  await client?.destroy();
  await emu?.close();
});

async function call(method: string, path: string, body?: unknown, auth = false): Promise<{ status: number; json: Record<string, unknown> | undefined }> {
  const res = await fetch(`${emu.restUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bot ${TOKEN}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

function callback(h: InteractionHandle, body: unknown) {
  return call('POST', `/interactions/${h.id}/${h.token}/callback`, body);
}

/** The `_errors` codes at `path` of a 50035 error tree. */
function codesAt(json: Record<string, unknown> | undefined, path: (string | number)[]): string[] {
  let node: unknown = json?.errors;
  for (const key of path) node = (node as Record<string, unknown> | undefined)?.[String(key)];
  return ((node as { _errors?: { code: string }[] } | undefined)?._errors ?? []).map((e) => e.code);
}

const x = (n: number) => 'x'.repeat(n);
const button = (id: string, label = 'Go') => ({ type: 2, style: 1, custom_id: id, label });
const row = (...components: unknown[]) => ({ type: 1, components });

const messageCases: [string, Record<string, unknown>, (string | number)[], string][] = [
  ['content over 2000', { content: x(2001) }, ['content'], 'BASE_TYPE_MAX_LENGTH'],
  ['more than 10 embeds', { embeds: Array.from({ length: 11 }, () => ({ title: 't' })) }, ['embeds'], 'BASE_TYPE_MAX_LENGTH'],
  ['embed title over 256', { embeds: [{ title: x(257) }] }, ['embeds', 0, 'title'], 'BASE_TYPE_MAX_LENGTH'],
  ['embed description over 4096', { embeds: [{ description: x(4097) }] }, ['embeds', 0, 'description'], 'BASE_TYPE_MAX_LENGTH'],
  ['more than 25 fields', { embeds: [{ fields: Array.from({ length: 26 }, () => ({ name: 'n', value: 'v' })) }] }, ['embeds', 0, 'fields'], 'BASE_TYPE_MAX_LENGTH'],
  ['field name over 256', { embeds: [{ fields: [{ name: x(257), value: 'v' }] }] }, ['embeds', 0, 'fields', 0, 'name'], 'BASE_TYPE_BAD_LENGTH'],
  ['field value over 1024', { embeds: [{ fields: [{ name: 'n', value: x(1025) }] }] }, ['embeds', 0, 'fields', 0, 'value'], 'BASE_TYPE_BAD_LENGTH'],
  ['footer over 2048', { embeds: [{ footer: { text: x(2049) } }] }, ['embeds', 0, 'footer', 'text'], 'BASE_TYPE_BAD_LENGTH'],
  ['author over 256', { embeds: [{ author: { name: x(257) } }] }, ['embeds', 0, 'author', 'name'], 'BASE_TYPE_BAD_LENGTH'],
  ['6000 characters across embeds', { embeds: [{ description: x(3500) }, { description: x(3500) }] }, ['embeds'], 'MAX_EMBED_SIZE_EXCEEDED'],
  ['custom_id over 100', { components: [row(button(x(101)))] }, ['components', 0, 'components', 0, 'custom_id'], 'BASE_TYPE_BAD_LENGTH'],
  ['empty custom_id', { components: [row(button(''))] }, ['components', 0, 'components', 0, 'custom_id'], 'BASE_TYPE_BAD_LENGTH'],
  ['duplicate custom_id', { components: [row(button('a')), row(button('a'))] }, ['components', 1, 'components', 0, 'custom_id'], 'COMPONENT_CUSTOM_ID_DUPLICATED'],
  ['6 buttons in a row', { components: [row(...Array.from({ length: 6 }, (_, i) => button(`b${i}`)))] }, ['components', 0, 'components'], 'BASE_TYPE_MAX_LENGTH'],
  ['6 action rows', { components: Array.from({ length: 6 }, (_, i) => row(button(`r${i}`))) }, ['components'], 'BASE_TYPE_MAX_LENGTH'],
  ['button label over 80', { components: [row(button('l', x(81)))] }, ['components', 0, 'components', 0, 'label'], 'BASE_TYPE_MAX_LENGTH'],
];

describe('message limits (callback type 4)', () => {
  it.each(messageCases)('%s → 400 50035', async (_name, data, path, code) => {
    const before = emu.violations.length;
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const { status, json } = await callback(h, { type: 4, data: { content: 'c', ...data } });
    expect(status).toBe(400);
    expect(json).toMatchObject({ code: 50035, message: 'Invalid Form Body' });
    expect(codesAt(json, ['data', ...path])).toContain(code);
    const v = emu.violations.slice(before);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ kind: 'invalid_form_body', status: 400, code: 50035, interactionId: h.id, route: '/interactions/:id/:token/callback' });
    // A rejected callback does not acknowledge: the bot can still answer properly.
    expect(h.snapshot().ack).toBeNull();
    expect((await callback(h, { type: 4, data: { content: 'fine' } })).status).toBe(204);
  });

  it('accepts payloads exactly at the limits', async () => {
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const before = emu.violations.length;
    const embeds = [
      { title: x(256), description: x(4096 - 256 - 1024), fields: [{ name: 'n', value: x(1023) }] },
      ...Array.from({ length: 9 }, () => ({ title: 't' })),
    ];
    const components = Array.from({ length: 5 }, (_, r) => row(...Array.from({ length: 5 }, (_, b) => button(`${r}-${b}-${x(90)}`, x(80)))));
    const { status } = await callback(h, { type: 4, data: { content: x(2000), embeds, components } });
    expect(status).toBe(204);
    expect(emu.violations.length).toBe(before);
  });

  it('an empty message → 400 50006', async () => {
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const { status, json } = await callback(h, { type: 4, data: { content: '' } });
    expect(status).toBe(400);
    expect(json).toMatchObject({ code: 50006 });
    expect(emu.violations.at(-1)?.kind).toBe('empty_message');
  });

  it('a response type the interaction does not allow → 400', async () => {
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const { status, json } = await callback(h, { type: 8, data: { choices: [] } });
    expect(status).toBe(400);
    expect(codesAt(json, ['type'])).toEqual(['INTERACTION_RESPONSE_TYPE_INVALID']);
    expect(emu.violations.at(-1)?.kind).toBe('invalid_response_type');
  });

  it('follow-ups and edits are validated too', async () => {
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    expect((await callback(h, { type: 5 })).status).toBe(204);
    const follow = await call('POST', `/webhooks/${APP_ID}/${h.token}?wait=true`, { content: x(2001) });
    expect(follow.status).toBe(400);
    expect(codesAt(follow.json, ['content'])).toEqual(['BASE_TYPE_MAX_LENGTH']);
    const edit = await call('PATCH', `/webhooks/${APP_ID}/${h.token}/messages/%40original`, { embeds: [{ title: x(300) }] });
    expect(edit.status).toBe(400);
    expect(codesAt(edit.json, ['embeds', 0, 'title'])).toEqual(['BASE_TYPE_MAX_LENGTH']);
  });
});

describe('autocomplete limits (callback type 8)', () => {
  const cases: [string, unknown[], (string | number)[], string][] = [
    ['26 choices', Array.from({ length: 26 }, (_, i) => ({ name: `n${i}`, value: `v${i}` })), ['choices'], 'BASE_TYPE_MAX_LENGTH'],
    ['choice name over 100', [{ name: x(101), value: 'v' }], ['choices', 0, 'name'], 'BASE_TYPE_BAD_LENGTH'],
    ['empty choice name', [{ name: '', value: 'v' }], ['choices', 0, 'name'], 'BASE_TYPE_BAD_LENGTH'],
    ['choice value over 100', [{ name: 'n', value: x(101) }], ['choices', 0, 'value'], 'BASE_TYPE_MAX_LENGTH'],
  ];
  it.each(cases)('%s → 400 50035', async (_name, choices, path, code) => {
    const h = emu.sendInteraction({ type: 'autocomplete', commandName: 'feed', subcommand: 'add', options: { handle: 'a' }, focused: 'handle' });
    const { status, json } = await callback(h, { type: 8, data: { choices } });
    expect(status).toBe(400);
    expect(codesAt(json, ['data', ...path])).toContain(code);
    expect(emu.violations.at(-1)).toMatchObject({ kind: 'invalid_form_body', interactionId: h.id });
  });
});

describe('modal limits (callback type 9)', () => {
  const input = (id: string, extra: Record<string, unknown> = {}) => ({ type: 18, label: 'L', component: { type: 4, custom_id: id, style: 1, ...extra } });
  const cases: [string, Record<string, unknown>, (string | number)[], string][] = [
    ['custom_id over 100', { custom_id: x(101), title: 'T', components: [input('a')] }, ['custom_id'], 'BASE_TYPE_BAD_LENGTH'],
    ['title over 45', { custom_id: 'm', title: x(46), components: [input('a')] }, ['title'], 'BASE_TYPE_BAD_LENGTH'],
    ['no components', { custom_id: 'm', title: 'T', components: [] }, ['components'], 'BASE_TYPE_MIN_LENGTH'],
    ['6 components', { custom_id: 'm', title: 'T', components: Array.from({ length: 6 }, (_, i) => input(`i${i}`)) }, ['components'], 'BASE_TYPE_MAX_LENGTH'],
    ['text input max_length over 4000', { custom_id: 'm', title: 'T', components: [input('a', { max_length: 4001 })] }, ['components', 0, 'component', 'max_length'], 'NUMBER_TYPE_MAX'],
    ['label over 45', { custom_id: 'm', title: 'T', components: [{ ...input('a'), label: x(46) }] }, ['components', 0, 'label'], 'BASE_TYPE_BAD_LENGTH'],
    ['duplicate text input ids', { custom_id: 'm', title: 'T', components: [input('a'), input('a')] }, ['components', 1, 'component', 'custom_id'], 'COMPONENT_CUSTOM_ID_DUPLICATED'],
  ];
  it.each(cases)('%s → 400 50035', async (_name, data, path, code) => {
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const { status, json } = await callback(h, { type: 9, data });
    expect(status).toBe(400);
    expect(codesAt(json, ['data', ...path])).toContain(code);
    expect(emu.violations.at(-1)).toMatchObject({ kind: 'invalid_form_body', interactionId: h.id });
  });
});

describe('command bulk overwrite limits', () => {
  const option = (name: string, extra: Record<string, unknown> = {}) => ({ type: 3, name, description: 'd', ...extra });
  const cases: [string, Record<string, unknown>, (string | number)[], string][] = [
    ['uppercase name', { name: 'Feed', description: 'd' }, [0, 'name'], 'APPLICATION_COMMAND_INVALID_NAME'],
    ['name with a space', { name: 'my feed', description: 'd' }, [0, 'name'], 'APPLICATION_COMMAND_INVALID_NAME'],
    ['name over 32', { name: x(33), description: 'd' }, [0, 'name'], 'BASE_TYPE_BAD_LENGTH'],
    ['missing description', { name: 'feed' }, [0, 'description'], 'BASE_TYPE_REQUIRED'],
    ['description over 100', { name: 'feed', description: x(101) }, [0, 'description'], 'BASE_TYPE_BAD_LENGTH'],
    ['26 options', { name: 'feed', description: 'd', options: Array.from({ length: 26 }, (_, i) => option(`o${i}`)) }, [0, 'options'], 'BASE_TYPE_MAX_LENGTH'],
    ['26 choices', { name: 'feed', description: 'd', options: [option('o', { choices: Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: `v${i}` })) })] }, [0, 'options', 0, 'choices'], 'BASE_TYPE_MAX_LENGTH'],
    ['autocomplete with choices', { name: 'feed', description: 'd', options: [option('o', { autocomplete: true, choices: [{ name: 'a', value: 'a' }] })] }, [0, 'options', 0, 'autocomplete'], 'APPLICATION_COMMAND_AUTOCOMPLETE_CHOICES_EXCLUSIVE'],
    ['required after optional', { name: 'feed', description: 'd', options: [option('a'), option('b', { required: true })] }, [0, 'options', 1, 'required'], 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID'],
    ['max_length over 6000', { name: 'feed', description: 'd', options: [option('a', { max_length: 6001 })] }, [0, 'options', 0, 'max_length'], 'NUMBER_TYPE_MAX'],
    ['bad localization locale', { name: 'feed', description: 'd', name_localizations: { 'xx-XX': 'feed' } }, [0, 'name_localizations', 'xx-XX'], 'ENUM_TYPE_COERCE'],
  ];
  it.each(cases)('%s → 400 50035', async (_name, command, path, code) => {
    const before = emu.violations.length;
    const { status, json } = await call('PUT', `/applications/${APP_ID}/guilds/${GUILD_ID}/commands`, [command], true);
    expect(status).toBe(400);
    expect(codesAt(json, path)).toContain(code);
    expect(emu.violations.slice(before)).toMatchObject([{ kind: 'invalid_form_body', route: '/applications/:app/guilds/:guild/commands' }]);
  });

  it('duplicate command names are refused', async () => {
    const { status, json } = await call('PUT', `/applications/${APP_ID}/commands`, [{ name: 'a', description: 'd' }, { name: 'a', description: 'e' }], true);
    expect(status).toBe(400);
    expect(codesAt(json, [1, 'name'])).toEqual(['APPLICATION_COMMANDS_DUPLICATE_NAME']);
  });
});
