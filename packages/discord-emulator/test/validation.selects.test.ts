/**
 * Selects in messages (string, user, role, mentionable, channel) and Labels in modals (text
 * inputs, selects, checkbox groups, radio groups, checkboxes): Discord's limits on their values,
 * defaults and options answer 400 50035 with the path of what is wrong, in every place a bot sends
 * them: channel messages and their edits, interaction responses (types 4, 7 and 9), follow-ups and
 * webhook edits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'discord.js';
import type { DiscordEmulator, InteractionHandle } from '../src/index.js';
import { ADMIN_ROLE_ID, APP_ID, CHANNEL_ID, GUILD_ID, SIMPLE_COMMANDS, TOKEN, USER_ID, loginClient, startTestEmulator } from './helpers.js';

let emu: DiscordEmulator;
// Logged in so that interactions have a gateway session to go to; nobody answers them but the test.
let client: Client;

beforeAll(async () => {
  emu = await startTestEmulator({ ackDeadlineMs: 60_000 });
  emu.setCommands(SIMPLE_COMMANDS, GUILD_ID);
  client = await loginClient(emu);
});

afterAll(async () => {
  await client?.destroy();
  await emu?.close();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> | undefined }> {
  const res = await fetch(`${emu.restUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bot ${TOKEN}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const callback = (h: InteractionHandle, body: unknown) => call('POST', `/interactions/${h.id}/${h.token}/callback`, body);

function codesAt(json: Record<string, unknown> | undefined, path: (string | number)[]): string[] {
  let node: unknown = json?.errors;
  for (const key of path) node = (node as Record<string, unknown> | undefined)?.[String(key)];
  return ((node as { _errors?: { code: string }[] } | undefined)?._errors ?? []).map((e) => e.code);
}

const x = (n: number) => 'x'.repeat(n);
const row = (...components: unknown[]) => ({ type: 1, components });
const options = (n: number, extra: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: n }, (_, i) => ({ label: `Option ${i}`, value: `v${i}`, ...extra(i) }));
const stringSelect = (extra: Record<string, unknown> = {}) => ({ type: 3, custom_id: 's', options: options(3), ...extra });
const channelSelect = (extra: Record<string, unknown> = {}) => ({ type: 8, custom_id: 'c', ...extra });
const roleSelect = (extra: Record<string, unknown> = {}) => ({ type: 6, custom_id: 'r', ...extra });

/** A message with one select, valid as given: every case below breaks one rule. */
const valid = {
  content: 'pick',
  components: [
    row(stringSelect({ min_values: 1, max_values: 2, options: options(3, (i) => ({ default: i === 0 })) })),
    row(channelSelect({ channel_types: [0, 5], default_values: [{ type: 'channel', id: CHANNEL_ID }], min_values: 0, max_values: 3 })),
    row(roleSelect({ default_values: [{ type: 'role', id: ADMIN_ROLE_ID }], max_values: 25 })),
    row({ type: 5, custom_id: 'u', default_values: [{ type: 'user', id: USER_ID }] }),
    row({ type: 7, custom_id: 'm', default_values: [{ type: 'user', id: USER_ID }, { type: 'role', id: ADMIN_ROLE_ID }], max_values: 2 }),
  ],
};

type Case = [string, Record<string, unknown>, (string | number)[], string];
const messageCases: Case[] = [
  ['26 options', { components: [row(stringSelect({ options: options(26) }))] }, ['components', 0, 'components', 0, 'options'], 'BASE_TYPE_MAX_LENGTH'],
  ['a repeated option value', { components: [row(stringSelect({ options: [{ label: 'a', value: 'v' }, { label: 'b', value: 'v' }] }))] }, ['components', 0, 'components', 0, 'options', 1, 'value'], 'SELECT_COMPONENT_OPTION_VALUE_DUPLICATED'],
  ['option label over 100', { components: [row(stringSelect({ options: [{ label: x(101), value: 'v' }] }))] }, ['components', 0, 'components', 0, 'options', 0, 'label'], 'BASE_TYPE_BAD_LENGTH'],
  ['min_values over the options', { components: [row(stringSelect({ min_values: 4 }))] }, ['components', 0, 'components', 0, 'min_values'], 'BASE_TYPE_MAX'],
  ['max_values over 25', { components: [row(channelSelect({ max_values: 26 }))] }, ['components', 0, 'components', 0, 'max_values'], 'NUMBER_TYPE_MAX'],
  ['more defaulted options than max_values', { components: [row(stringSelect({ options: options(3, () => ({ default: true })) }))] }, ['components', 0, 'components', 0, 'options'], 'SELECT_COMPONENT_TOO_MANY_DEFAULTS'],
  ['default_values on a string select', { components: [row(stringSelect({ default_values: [{ type: 'channel', id: CHANNEL_ID }] }))] }, ['components', 0, 'components', 0, 'default_values'], 'BASE_TYPE_INVALID'],
  ['more default_values than max_values', { components: [row(channelSelect({ default_values: [{ type: 'channel', id: CHANNEL_ID }, { type: 'channel', id: '222222222222222224' }] }))] }, ['components', 0, 'components', 0, 'default_values'], 'SELECT_COMPONENT_TOO_MANY_DEFAULTS'],
  ['fewer default_values than min_values', { components: [row(channelSelect({ min_values: 2, max_values: 3, default_values: [{ type: 'channel', id: CHANNEL_ID }] }))] }, ['components', 0, 'components', 0, 'default_values'], 'SELECT_COMPONENT_TOO_FEW_DEFAULTS'],
  ['a role default in a channel select', { components: [row(channelSelect({ default_values: [{ type: 'role', id: ADMIN_ROLE_ID }] }))] }, ['components', 0, 'components', 0, 'default_values', 0, 'type'], 'BASE_TYPE_CHOICES'],
  ['a channel default in a mentionable select', { components: [row({ type: 7, custom_id: 'm', default_values: [{ type: 'channel', id: CHANNEL_ID }] })] }, ['components', 0, 'components', 0, 'default_values', 0, 'type'], 'BASE_TYPE_CHOICES'],
  ['a default_value id that is no snowflake', { components: [row(roleSelect({ default_values: [{ type: 'role', id: 'admins' }] }))] }, ['components', 0, 'components', 0, 'default_values', 0, 'id'], 'NUMBER_TYPE_COERCE'],
  ['channel_types on a role select', { components: [row(roleSelect({ channel_types: [0] }))] }, ['components', 0, 'components', 0, 'channel_types'], 'BASE_TYPE_INVALID'],
  ['an unknown channel type', { components: [row(channelSelect({ channel_types: [0, 99] }))] }, ['components', 0, 'components', 0, 'channel_types', 1], 'BASE_TYPE_CHOICES'],
  ['a select beside a button', { components: [row(channelSelect(), { type: 2, style: 1, custom_id: 'b', label: 'B' })] }, ['components', 0, 'components'], 'COMPONENT_LAYOUT_WIDTH_EXCEEDED'],
  ['6 rows of selects', { components: Array.from({ length: 6 }, (_, i) => row(channelSelect({ custom_id: `c${i}` }))) }, ['components'], 'BASE_TYPE_MAX_LENGTH'],
  ['select custom_id over 100', { components: [row(channelSelect({ custom_id: x(101) }))] }, ['components', 0, 'components', 0, 'custom_id'], 'BASE_TYPE_BAD_LENGTH'],
];

/** Posts a message with a select the way the bot does, to press it: its interaction. */
async function componentInteraction(): Promise<InteractionHandle> {
  const posted = await call('POST', `/channels/${CHANNEL_ID}/messages`, { content: 'panel', components: [row(channelSelect({ custom_id: 'panel' }))] });
  expect(posted.status).toBe(200);
  return emu.selectMenu({ messageId: String(posted.json!.id), customId: 'panel', values: [CHANNEL_ID] });
}

describe('selects in messages', () => {
  it('a message within every limit is taken everywhere', async () => {
    const before = emu.violations.length;
    const posted = await call('POST', `/channels/${CHANNEL_ID}/messages`, valid);
    expect(posted.status).toBe(200);
    expect((await call('PATCH', `/channels/${CHANNEL_ID}/messages/${String(posted.json!.id)}`, valid)).status).toBe(200);
    const h = await componentInteraction();
    expect((await callback(h, { type: 7, data: valid })).status).toBe(204);
    expect(emu.violations.slice(before)).toEqual([]);
  });

  it('a repeated option value is refused at the repeat, with Discord\'s code and message, and nothing is posted', async () => {
    const before = emu.violations.length;
    const options = [{ label: 'A', value: '7' }, { label: 'B', value: '8' }, { label: 'A again', value: '7' }];
    const { status, json } = await call('POST', `/channels/${CHANNEL_ID}/messages`, { content: 'pick', components: [row(stringSelect({ options }))] });
    expect(status).toBe(400);
    expect(json).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        components: {
          0: { components: { 0: { options: { 2: { value: { _errors: [{ code: 'SELECT_COMPONENT_OPTION_VALUE_DUPLICATED', message: 'Select option values must be unique' }] } } } } } },
        },
      },
    });
    expect(emu.violations.slice(before).map((v) => v.kind)).toEqual(['invalid_form_body']);
  });

  const where: [string, (data: Record<string, unknown>) => Promise<{ status: number; json: Record<string, unknown> | undefined }>, (string | number)[]][] = [
    ['channel message', (data) => call('POST', `/channels/${CHANNEL_ID}/messages`, { content: 'c', ...data }), []],
    [
      'channel message edit',
      async (data) => {
        const posted = await call('POST', `/channels/${CHANNEL_ID}/messages`, { content: 'c' });
        return call('PATCH', `/channels/${CHANNEL_ID}/messages/${String(posted.json!.id)}`, data);
      },
      [],
    ],
    ['reply (callback 4)', (data) => callback(emu.sendInteraction({ type: 'command', commandName: 'ping' }), { type: 4, data: { content: 'c', ...data } }), ['data']],
    ['update (callback 7)', async (data) => callback(await componentInteraction(), { type: 7, data }), ['data']],
    [
      'follow-up',
      async (data) => {
        const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
        await callback(h, { type: 5 });
        return call('POST', `/webhooks/${APP_ID}/${h.token}?wait=true`, { content: 'c', ...data });
      },
      [],
    ],
    [
      'webhook edit of the reply',
      async (data) => {
        const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
        await callback(h, { type: 4, data: { content: 'c' } });
        return call('PATCH', `/webhooks/${APP_ID}/${h.token}/messages/%40original`, data);
      },
      [],
    ],
  ];
  for (const [place, send, prefix] of where) {
    it.each(messageCases)(`${place}: %s → 400 50035`, async (_name, data, path, code) => {
      const before = emu.violations.length;
      const { status, json } = await send(data);
      expect(status).toBe(400);
      expect(json).toMatchObject({ code: 50035, message: 'Invalid Form Body' });
      expect(codesAt(json, [...prefix, ...path])).toContain(code);
      expect(emu.violations.slice(before).map((v) => v.kind)).toEqual(['invalid_form_body']);
    });
  }
});

describe('Labels in modals (callback 9)', () => {
  const label = (component: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 18, label: 'Label', component, ...extra });
  const checkboxGroup = (extra: Record<string, unknown> = {}) => ({ type: 22, custom_id: 'kinds', options: options(3), ...extra });
  const modal = (...components: unknown[]) => ({ custom_id: 'create', title: 'Create', components });
  const validModal = modal(
    label({ type: 4, custom_id: 'account', style: 1, max_length: 64 }),
    label(channelSelect({ custom_id: 'channel', channel_types: [0, 5], default_values: [{ type: 'channel', id: CHANNEL_ID }] }), { description: 'Where posts go' }),
    label(checkboxGroup({ min_values: 1, max_values: 3, options: options(3, (i) => ({ default: i < 2 })) })),
    label(stringSelect({ custom_id: 'state', required: false })),
    label(roleSelect({ custom_id: 'roles', max_values: 25, required: false })),
  );
  const cases: Case[] = [
    ['6 Labels', modal(...Array.from({ length: 6 }, (_, i) => label({ type: 4, custom_id: `t${i}`, style: 1 }))), ['components'], 'BASE_TYPE_MAX_LENGTH'],
    ['a Label over 45 characters', modal(label({ type: 4, custom_id: 't', style: 1 }, { label: x(46) })), ['components', 0, 'label'], 'BASE_TYPE_BAD_LENGTH'],
    ['a Label description over 100', modal(label({ type: 4, custom_id: 't', style: 1 }, { description: x(101) })), ['components', 0, 'description'], 'BASE_TYPE_MAX_LENGTH'],
    ['a Label holding a button', modal(label({ type: 2, style: 1, custom_id: 'b', label: 'B' })), ['components', 0, 'component', 'type'], 'COMPONENT_TYPE_INVALID'],
    ['a select with 26 options', modal(label(stringSelect({ options: options(26) }))), ['components', 0, 'component', 'options'], 'BASE_TYPE_MAX_LENGTH'],
    ['a channel select with a user default', modal(label(channelSelect({ default_values: [{ type: 'user', id: USER_ID }] }))), ['components', 0, 'component', 'default_values', 0, 'type'], 'BASE_TYPE_CHOICES'],
    ['a checkbox group with 11 options', modal(label(checkboxGroup({ options: options(11) }))), ['components', 0, 'component', 'options'], 'BASE_TYPE_MAX_LENGTH'],
    ['a checkbox group with no options', modal(label(checkboxGroup({ options: [] }))), ['components', 0, 'component', 'options'], 'BASE_TYPE_MIN_LENGTH'],
    ['a checkbox group max_values over its options', modal(label(checkboxGroup({ max_values: 4 }))), ['components', 0, 'component', 'max_values'], 'BASE_TYPE_MAX'],
    ['a checkbox group min_values over max_values', modal(label(checkboxGroup({ min_values: 3, max_values: 2 }))), ['components', 0, 'component', 'min_values'], 'SELECT_COMPONENT_MIN_VALUES_GREATER_THAN_MAX'],
    ['a checkbox group max_values over 10', modal(label(checkboxGroup({ max_values: 11, options: options(10) }))), ['components', 0, 'component', 'max_values'], 'NUMBER_TYPE_MAX'],
    ['a checkbox group with more defaults than max_values', modal(label(checkboxGroup({ max_values: 1, options: options(3, () => ({ default: true })) }))), ['components', 0, 'component', 'options'], 'SELECT_COMPONENT_TOO_MANY_DEFAULTS'],
    ['a checkbox group with duplicate values', modal(label(checkboxGroup({ options: [{ label: 'a', value: 'v' }, { label: 'b', value: 'v' }] }))), ['components', 0, 'component', 'options', 1, 'value'], 'SELECT_COMPONENT_OPTION_VALUE_DUPLICATED'],
    ['a checkbox option label over 100', modal(label(checkboxGroup({ options: [{ label: x(101), value: 'v' }] }))), ['components', 0, 'component', 'options', 0, 'label'], 'BASE_TYPE_BAD_LENGTH'],
    ['a radio group with one option', modal(label({ type: 21, custom_id: 'r', options: options(1) })), ['components', 0, 'component', 'options'], 'BASE_TYPE_MIN_LENGTH'],
    ['a checkbox default that is no boolean', modal(label({ type: 23, custom_id: 'ok', default: 'yes' })), ['components', 0, 'component', 'default'], 'BASE_TYPE_BOOLEAN'],
    ['duplicate custom_ids across Labels', modal(label(channelSelect()), label(channelSelect())), ['components', 1, 'component', 'custom_id'], 'COMPONENT_CUSTOM_ID_DUPLICATED'],
  ];

  it('a modal of Labels within every limit is shown', async () => {
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const before = emu.violations.length;
    const { status, json } = await callback(h, { type: 9, data: validModal });
    expect(json).toBeUndefined();
    expect(status).toBe(204);
    expect(emu.violations.slice(before)).toEqual([]);
  });

  it.each(cases)('%s → 400 50035', async (_name, data, path, code) => {
    const h = emu.sendInteraction({ type: 'command', commandName: 'ping' });
    const { status, json } = await callback(h, { type: 9, data });
    expect(status).toBe(400);
    expect(codesAt(json, ['data', ...path])).toContain(code);
    expect(emu.violations.at(-1)).toMatchObject({ kind: 'invalid_form_body', interactionId: h.id });
  });
});
