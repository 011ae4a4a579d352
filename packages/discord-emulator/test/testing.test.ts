/**
 * The unit-test doubles of `@feedbot/discord-emulator/testing`: payloads handed straight to a
 * real discord.js client, and the REST recorder it talks to.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChannelType, Client, Events, MessageFlags, PermissionFlagsBits, type Interaction } from 'discord.js';
import { dispatchInteraction, interactionPayloads, RestRecorder, snowflake } from '../src/testing/index.js';

const APP_ID = '500000000000000001';
const GUILD_ID = '500000000000000002';
const CHANNEL_ID = '500000000000000003';
const USER_ID = '500000000000000004';

const { chatInput, autocomplete, buttonPress, modalSubmit } = interactionPayloads({
  applicationId: APP_ID,
  guildId: GUILD_ID,
  channel: { id: CHANNEL_ID, name: 'general' },
  userId: USER_ID,
  permissions: String(PermissionFlagsBits.SendMessages),
});

let recorder: RestRecorder;
let client: Client;
let handler: (i: Interaction) => Promise<void>;
let seen: Interaction[];

beforeEach(() => {
  let now = 1000;
  recorder = new RestRecorder({ clock: () => (now += 10) });
  client = new Client({ intents: [], rest: recorder.rest });
  client.rest.setToken('not-a-real-token');
  seen = [];
  handler = async () => {};
  client.on(Events.InteractionCreate, (i) => {
    seen.push(i);
    void handler(i);
  });
});

afterEach(async () => {
  await client.destroy();
});

describe('interaction payloads', () => {
  it('a command carries its sub-command, typed options, a resolved channel, the member and the locale', () => {
    dispatchInteraction(
      client,
      chatInput('feed', 'add', { handle: 'nasa', interval: 10, ratio: 0.5, silent: true, channel: { channel: { id: '500000000000000009', name: 'news' } } }, { locale: 'es-ES' }),
    );
    const i = seen[0]!;
    if (!i.isChatInputCommand()) throw new Error('not a chat input command');
    expect(i.commandName).toBe('feed');
    expect(i.options.getSubcommand()).toBe('add');
    expect(i.options.getString('handle')).toBe('nasa');
    expect(i.options.getInteger('interval')).toBe(10);
    expect(i.options.getNumber('ratio')).toBe(0.5);
    expect(i.options.getBoolean('silent')).toBe(true);
    expect(i.options.getChannel('channel')).toMatchObject({ id: '500000000000000009', name: 'news', type: ChannelType.GuildText });
    expect(i.locale).toBe('es-ES');
    expect(i.guildId).toBe(GUILD_ID);
    expect(i.channelId).toBe(CHANNEL_ID);
    expect(i.applicationId).toBe(APP_ID);
    expect(i.user.id).toBe(USER_ID);
    expect(i.memberPermissions?.has(PermissionFlagsBits.SendMessages)).toBe(true);
    expect(i.memberPermissions?.has(PermissionFlagsBits.ManageGuild)).toBe(false);
  });

  it('an attachment option is resolved as Discord sends it', () => {
    const url = 'http://127.0.0.1:9/attachments/1/feeds.json';
    dispatchInteraction(client, chatInput('feed', 'import', { archivo: { attachment: { id: '500000000000000010', filename: 'feeds.json', url, size: 42, contentType: 'application/json' } } }));
    const i = seen[0]!;
    if (!i.isChatInputCommand()) throw new Error('not a chat input command');
    expect(i.options.getAttachment('archivo')).toMatchObject({ id: '500000000000000010', name: 'feeds.json', url, size: 42, contentType: 'application/json', ephemeral: true });
  });

  it('an invoker can be someone else, with other permissions, or in a DM with the bot', () => {
    dispatchInteraction(client, chatInput('ping', undefined, {}, { userId: '500000000000000005', permissions: String(PermissionFlagsBits.Administrator) }));
    dispatchInteraction(client, chatInput('ping', undefined, {}, { guildId: null }));
    const [other, dm] = seen;
    expect(other?.user.id).toBe('500000000000000005');
    expect(other?.memberPermissions?.has(PermissionFlagsBits.ManageGuild)).toBe(true);
    expect(dm?.inGuild()).toBe(false);
    expect(dm?.guildId).toBeNull();
    expect(dm?.user.id).toBe(USER_ID);
  });

  it('autocomplete marks the focused option; buttons and modal submits carry their data', () => {
    dispatchInteraction(client, autocomplete('feed', 'delete', { id: 'na' }, 'id'));
    dispatchInteraction(client, buttonPress('feed:delete:1', {}, MessageFlags.Ephemeral));
    dispatchInteraction(client, modalSubmit('apikey:set', { key: 'fbk_secret', note: '' }));
    const [typing, press, submit] = seen;
    if (!typing?.isAutocomplete() || !press?.isButton() || !submit?.isModalSubmit()) throw new Error('unexpected interaction types');
    expect(typing.options.getSubcommand()).toBe('delete');
    expect(typing.options.getFocused(true)).toMatchObject({ name: 'id', value: 'na' });
    expect(press.customId).toBe('feed:delete:1');
    expect(press.message.flags.has(MessageFlags.Ephemeral)).toBe(true);
    expect(press.message.author.id).toBe(APP_ID);
    expect(submit.customId).toBe('apikey:set');
    expect(submit.fields.getTextInputValue('key')).toBe('fbk_secret');
    expect(submit.fields.getTextInputValue('note')).toBe('');
  });

  it('ids are fresh snowflakes of now', () => {
    const a = chatInput('ping', undefined);
    const b = chatInput('ping', undefined);
    expect(a.id).not.toBe(b.id);
    expect(Number((BigInt(a.id) >> 22n) + 1_420_070_400_000n)).toBeGreaterThan(Date.now() - 5000);
    expect(snowflake()).toMatch(/^\d{17,20}$/);
  });
});

describe('REST recorder', () => {
  it('records the callback, edits, follow-ups and deletes with their clock time, and answers like Discord', async () => {
    const done = new Promise<string>((resolve) => {
      handler = async (i) => {
        if (!i.isChatInputCommand()) return;
        await i.deferReply({ flags: MessageFlags.Ephemeral });
        await i.editReply({ content: 'done' });
        const followUp = await i.followUp({ content: 'more', flags: MessageFlags.Ephemeral });
        await i.deleteReply();
        resolve(followUp.content);
      };
    });
    const raw = chatInput('ping', undefined);
    dispatchInteraction(client, raw);
    expect(await done).toBe('more');
    const route = (path: string) => path.replace(raw.id, ':id').replace(raw.token, ':token').replace(APP_ID, ':app');
    expect(recorder.calls.map((c) => `${c.method} ${route(c.path)}`)).toEqual([
      'POST /interactions/:id/:token/callback',
      'PATCH /webhooks/:app/:token/messages/@original',
      'POST /webhooks/:app/:token',
      'DELETE /webhooks/:app/:token/messages/@original',
    ]);
    const [callback] = recorder.callbacks();
    expect(callback).toMatchObject({ path: `/interactions/${raw.id}/${raw.token}/callback`, query: '?with_response=false', at: 1010 });
    expect(callback?.body).toEqual({ type: 5, data: { flags: MessageFlags.Ephemeral } });
    expect(recorder.edits().map((c) => c.body)).toEqual([expect.objectContaining({ content: 'done' })]);
    expect(recorder.followUps().map((c) => c.raw)).toEqual([expect.stringContaining('"more"')]);
    expect(recorder.calls.map((c) => c.at)).toEqual([1010, 1020, 1030, 1040]);
  });

  it('waits for an interaction callback whether it came before or comes later', async () => {
    handler = async (i) => {
      if (i.isChatInputCommand()) await i.reply({ content: i.commandName });
    };
    const early = chatInput('early', undefined);
    dispatchInteraction(client, early);
    await new Promise((r) => setTimeout(r, 20));
    const late = chatInput('late', undefined);
    const waiting = recorder.callback(late.id, 2000);
    dispatchInteraction(client, late);
    expect(((await recorder.callback(early.id)).body as { data: { content: string } }).data.content).toBe('early');
    expect(((await waiting).body as { data: { content: string } }).data.content).toBe('late');
    await expect(recorder.callback('500000000000000099', 30)).rejects.toThrow(/not acknowledged within 30 ms/);
  });

  it('delays every answer by latencyMs', async () => {
    const real = new RestRecorder({ latencyMs: 80 });
    const slow = new Client({ intents: [], rest: real.rest });
    let answeredAfter = 0;
    slow.on(Events.InteractionCreate, async (i) => {
      if (!i.isChatInputCommand()) return;
      const started = Date.now();
      await i.reply({ content: 'late' });
      answeredAfter = Date.now() - started;
    });
    const raw = chatInput('ping', undefined);
    dispatchInteraction(slow, raw);
    const call = await real.callback(raw.id);
    await new Promise((r) => setTimeout(r, 150));
    expect(call.at).toBeGreaterThan(Date.now() - 5000);
    expect(answeredAfter).toBeGreaterThanOrEqual(75);
    await slow.destroy();
  });
});
