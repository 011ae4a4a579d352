/**
 * Real discord.js objects without Discord: a Client that never logs in, whose REST calls are
 * captured through the `rest.makeRequest` option, and interactions built from raw API payloads.
 */
import { randomBytes } from 'node:crypto';
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ChannelType,
  ComponentType,
  InteractionType,
  type APIApplicationCommandInteractionDataOption,
  type APIApplicationCommandAutocompleteInteraction,
  type APIChatInputApplicationCommandInteraction,
  type APIInteraction,
  type APIMessage,
  type APIMessageComponentButtonInteraction,
  type APIModalSubmitInteraction,
  type APIInteractionDataResolvedChannel,
} from 'discord-api-types/v10';
import { Events, PermissionFlagsBits, type Client, type Interaction } from 'discord.js';
import { Response } from 'undici';
import { createDiscordClient } from '../../src/bot/discord-client.js';

export const APP_ID = '1200000000000000001';
export const GUILD_ID = '1100000000000000001';
export const OTHER_GUILD_ID = '1100000000000000002';
export const CHANNEL_ID = '1300000000000000001';
export const ADMIN_ID = '1400000000000000001';
export const MEMBER_ID = '1400000000000000002';

export const ADMIN_PERMS = String(PermissionFlagsBits.ManageGuild | PermissionFlagsBits.SendMessages);
export const MEMBER_PERMS = String(PermissionFlagsBits.SendMessages | PermissionFlagsBits.ViewChannel);
export const ADMINISTRATOR_PERMS = String(PermissionFlagsBits.Administrator);

export interface CapturedCall {
  method: string;
  /** Path after /api/v10, with @original decoded. */
  path: string;
  query: string;
  body: unknown;
  at: number;
}

let sequence = 0n;
/** Snowflakes whose timestamp is now, so the responder trusts the creation time. */
export function snowflake(at = Date.now()): string {
  sequence = (sequence + 1n) % 4096n;
  return (((BigInt(at) - 1420070400000n) << 22n) | sequence).toString();
}

/** The message Discord would return for a webhook call carrying `body`. */
export function fakeMessage(body: Record<string, unknown> | undefined, flags = 0): APIMessage {
  return {
    id: snowflake(),
    channel_id: CHANNEL_ID,
    author: { id: APP_ID, username: 'feedbot', discriminator: '0', avatar: null, global_name: null, bot: true },
    content: (body?.content as string | undefined) ?? '',
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: (body?.embeds as APIMessage['embeds'] | undefined) ?? [],
    components: [],
    pinned: false,
    type: 0,
    flags,
  } as APIMessage;
}

export interface TestDiscord {
  client: Client;
  calls: CapturedCall[];
  /** Dispatches a raw interaction through discord.js and resolves with the built Interaction. */
  dispatch(raw: APIInteraction): Interaction;
  /** Calls to the interaction callback endpoint. */
  callbacks(): CapturedCall[];
  /** Edits of the original response. */
  edits(): CapturedCall[];
  followUps(): CapturedCall[];
  /** Per-call latency of Discord itself (ms). */
  latencyMs: number;
  destroy(): Promise<void>;
}

export function createTestDiscord(opts: { latencyMs?: number } = {}): TestDiscord {
  const calls: CapturedCall[] = [];
  const state = { latencyMs: opts.latencyMs ?? 0 };
  const client = createDiscordClient({
    rest: {
      api: 'https://discord.test/api',
      async makeRequest(url: string, init) {
        const u = new URL(url);
        const path = decodeURIComponent(u.pathname.replace(/^\/api\/v\d+/, ''));
        let body: unknown;
        if (typeof init.body === 'string') body = JSON.parse(init.body);
        calls.push({ method: init.method ?? 'GET', path, query: u.search, body, at: Date.now() });
        if (state.latencyMs) await new Promise((r) => setTimeout(r, state.latencyMs));
        const method = init.method ?? 'GET';
        if (path.endsWith('/callback')) return new Response(null, { status: 204 });
        if (method === 'DELETE') return new Response(null, { status: 204 });
        if (path.startsWith('/webhooks/')) {
          const data = (body ?? {}) as Record<string, unknown>;
          return Response.json(fakeMessage(data, (data.flags as number | undefined) ?? 0));
        }
        return Response.json({});
      },
    },
  });
  client.rest.setToken('test-token-not-real');
  let last: Interaction | undefined;
  client.on(Events.InteractionCreate, (i) => {
    last = i;
  });
  const byPath = (pred: (c: CapturedCall) => boolean) => () => calls.filter(pred);
  return {
    client,
    calls,
    dispatch(raw) {
      last = undefined;
      (client as unknown as { actions: { InteractionCreate: { handle(d: unknown): void } } }).actions.InteractionCreate.handle(raw);
      if (!last) throw new Error('discord.js did not emit the interaction');
      return last;
    },
    callbacks: byPath((c) => c.path.endsWith('/callback')),
    edits: byPath((c) => c.method === 'PATCH' && c.path.endsWith('/messages/@original')),
    followUps: byPath((c) => c.method === 'POST' && c.path.startsWith('/webhooks/') && !c.path.includes('/messages/')),
    get latencyMs() {
      return state.latencyMs;
    },
    set latencyMs(v: number) {
      state.latencyMs = v;
    },
    async destroy() {
      await client.destroy();
    },
  };
}

// ─── Raw payloads ───────────────────────────────────────────────────────────────────────────

export interface Invoker {
  userId?: string;
  permissions?: string;
  locale?: string;
  guildId?: string | null;
}

function base(invoker: Invoker) {
  const userId = invoker.userId ?? ADMIN_ID;
  const user = { id: userId, username: `user${userId.slice(-4)}`, discriminator: '0', avatar: null, global_name: null };
  const guildId = invoker.guildId === undefined ? GUILD_ID : invoker.guildId;
  const common = {
    id: snowflake(),
    application_id: APP_ID,
    token: `tok_${randomBytes(12).toString('hex')}`,
    version: 1 as const,
    locale: (invoker.locale ?? 'en-US') as APIChatInputApplicationCommandInteraction['locale'],
    app_permissions: '0',
    entitlements: [],
    authorizing_integration_owners: {},
    attachment_size_limit: 8_388_608,
    channel_id: CHANNEL_ID,
    channel: { id: CHANNEL_ID, type: ChannelType.GuildText, name: 'general' },
  };
  if (guildId === null) return { ...common, user, context: 2 };
  return {
    ...common,
    guild_id: guildId,
    guild_locale: 'en-US',
    guild: { id: guildId, locale: 'en-US', features: [] },
    context: 0,
    member: {
      user,
      roles: [],
      joined_at: '2024-01-01T00:00:00.000Z',
      deaf: false,
      mute: false,
      flags: 0,
      permissions: invoker.permissions ?? ADMIN_PERMS,
    },
  };
}

export type OptionValue = string | number | boolean | { channel: { id: string; name: string; type?: ChannelType } };

function toOptions(options: Record<string, OptionValue>, focused?: string) {
  const resolved: { channels?: Record<string, APIInteractionDataResolvedChannel> } = {};
  const list = Object.entries(options).map(([name, value]): APIApplicationCommandInteractionDataOption => {
    if (typeof value === 'object') {
      const type = value.channel.type ?? ChannelType.GuildText;
      resolved.channels ??= {};
      resolved.channels[value.channel.id] = { id: value.channel.id, name: value.channel.name, type, permissions: '0' } as APIInteractionDataResolvedChannel;
      return { name, type: ApplicationCommandOptionType.Channel, value: value.channel.id };
    }
    const type =
      typeof value === 'number'
        ? ApplicationCommandOptionType.Integer
        : typeof value === 'boolean'
          ? ApplicationCommandOptionType.Boolean
          : ApplicationCommandOptionType.String;
    return { name, type, value, ...(focused === name ? { focused: true } : {}) } as APIApplicationCommandInteractionDataOption;
  });
  return { list, resolved };
}

export function chatInput(
  command: string,
  sub: string | undefined,
  options: Record<string, OptionValue> = {},
  invoker: Invoker = {},
): APIChatInputApplicationCommandInteraction {
  const { list, resolved } = toOptions(options);
  return {
    ...base(invoker),
    type: InteractionType.ApplicationCommand,
    data: {
      id: snowflake(),
      name: command,
      type: ApplicationCommandType.ChatInput,
      options: sub ? [{ name: sub, type: ApplicationCommandOptionType.Subcommand, options: list }] : list,
      ...(resolved.channels ? { resolved } : {}),
    },
  } as unknown as APIChatInputApplicationCommandInteraction;
}

export function autocomplete(
  command: string,
  sub: string,
  options: Record<string, string | number>,
  focused: string,
  invoker: Invoker = {},
): APIApplicationCommandAutocompleteInteraction {
  const { list } = toOptions(options, focused);
  return {
    ...base(invoker),
    type: InteractionType.ApplicationCommandAutocomplete,
    data: {
      id: snowflake(),
      name: command,
      type: ApplicationCommandType.ChatInput,
      options: [{ name: sub, type: ApplicationCommandOptionType.Subcommand, options: list }],
    },
  } as unknown as APIApplicationCommandAutocompleteInteraction;
}

export function buttonPress(customId: string, invoker: Invoker = {}, flags = 0): APIMessageComponentButtonInteraction {
  return {
    ...base(invoker),
    type: InteractionType.MessageComponent,
    message: fakeMessage(undefined, flags),
    data: { custom_id: customId, component_type: ComponentType.Button },
  } as unknown as APIMessageComponentButtonInteraction;
}

export function modalSubmit(customId: string, values: Record<string, string>, invoker: Invoker = {}): APIModalSubmitInteraction {
  return {
    ...base(invoker),
    type: InteractionType.ModalSubmit,
    data: {
      custom_id: customId,
      components: Object.entries(values).map(([id, value]) => ({
        type: ComponentType.Label,
        id: 1,
        component: { type: ComponentType.TextInput, custom_id: id, value, id: 2 },
      })),
    },
  } as unknown as APIModalSubmitInteraction;
}
