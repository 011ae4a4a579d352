/**
 * Real discord.js objects without Discord: interactions are built from raw gateway payloads and
 * dispatched through discord.js' own InteractionCreate action; every REST call the client makes
 * is captured through the `rest.makeRequest` option and answered at once. What a benchmark reads
 * is the moment the interaction callback (the acknowledgement) left discord.js.
 */
import { randomBytes } from 'node:crypto';
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ChannelType,
  InteractionType,
  type APIApplicationCommandInteractionDataOption,
  type APIInteraction,
  type APIMessage,
} from 'discord-api-types/v10';
import { PermissionFlagsBits, type Client, type ClientOptions } from 'discord.js';
import { Response } from 'undici';

export const APP_ID = '1200000000000000001';
export const CHANNEL_ID = '1300000000000000001';
export const ADMIN_PERMS = String(PermissionFlagsBits.ManageGuild | PermissionFlagsBits.SendMessages | PermissionFlagsBits.ViewChannel);

export interface CallbackRecord {
  /** performance.now() when discord.js handed the callback to the transport. */
  at: number;
  /** The raw JSON body (parsed on demand: parsing is not part of what is measured). */
  raw: string | undefined;
}

export interface WebhookRecord {
  at: number;
  method: string;
  path: string;
  raw: string | undefined;
}

let sequence = 0n;
/** A snowflake whose timestamp is now, so the responder trusts the interaction's age. */
export function snowflake(at = Date.now()): string {
  sequence = (sequence + 1n) % 4096n;
  return (((BigInt(at) - 1420070400000n) << 22n) | sequence).toString();
}

function fakeMessage(raw: string | undefined): APIMessage {
  const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  return {
    id: snowflake(),
    channel_id: CHANNEL_ID,
    author: { id: APP_ID, username: 'feedbot', discriminator: '0', avatar: null, global_name: null, bot: true },
    content: (body.content as string | undefined) ?? '',
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: (body.embeds as APIMessage['embeds'] | undefined) ?? [],
    components: [],
    pinned: false,
    type: 0,
    flags: (body.flags as number | undefined) ?? 0,
  } as APIMessage;
}

/**
 * Captures one client's REST traffic. Callbacks are matched to interactions by id; a waiter may
 * register before or after the callback arrives.
 */
export class RestCapture {
  private readonly callbacks = new Map<string, CallbackRecord>();
  private readonly waiters = new Map<string, (record: CallbackRecord) => void>();
  readonly webhooks: WebhookRecord[] = [];
  callbackCount = 0;

  readonly rest: ClientOptions['rest'] = {
    api: 'https://discord.invalid/api',
    makeRequest: async (url: string, init) => {
      const at = performance.now();
      const raw = typeof init.body === 'string' ? init.body : undefined;
      const path = new URL(url).pathname.replace(/^\/api\/v\d+/, '');
      const method = init.method ?? 'GET';
      if (path.startsWith('/interactions/') && path.endsWith('/callback')) {
        const id = path.split('/')[2]!;
        this.callbackCount++;
        const record = { at, raw };
        const waiter = this.waiters.get(id);
        if (waiter) {
          this.waiters.delete(id);
          waiter(record);
        } else {
          this.callbacks.set(id, record);
        }
        return new Response(null, { status: 204 });
      }
      this.webhooks.push({ at, method, path: decodeURIComponent(path), raw });
      if (method === 'DELETE') return new Response(null, { status: 204 });
      if (path.startsWith('/webhooks/')) return Response.json(fakeMessage(raw));
      return Response.json({});
    },
  };

  /** Resolves with the interaction's acknowledgement. */
  callback(interactionId: string, timeoutMs = 30_000): Promise<CallbackRecord> {
    const seen = this.callbacks.get(interactionId);
    if (seen) {
      this.callbacks.delete(interactionId);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(interactionId);
        reject(new Error(`interaction ${interactionId} was not acknowledged within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(interactionId, (record) => {
        clearTimeout(timer);
        resolve(record);
      });
    });
  }
}

/** Hands a raw payload to discord.js exactly as the gateway would. */
export function dispatch(client: Client, raw: APIInteraction): void {
  (client as unknown as { actions: { InteractionCreate: { handle(d: unknown): void } } }).actions.InteractionCreate.handle(raw);
}

// ─── Raw payloads ───────────────────────────────────────────────────────────────────────────

export interface Invoker {
  guildId: string;
  userId: string;
  permissions?: string;
  locale?: string;
}

function base(invoker: Invoker) {
  const user = { id: invoker.userId, username: `user${invoker.userId.slice(-4)}`, discriminator: '0', avatar: null, global_name: null };
  return {
    id: snowflake(),
    application_id: APP_ID,
    token: `tok_${randomBytes(12).toString('hex')}`,
    version: 1 as const,
    locale: invoker.locale ?? 'en-US',
    app_permissions: '0',
    entitlements: [],
    authorizing_integration_owners: {},
    attachment_size_limit: 8_388_608,
    channel_id: CHANNEL_ID,
    channel: { id: CHANNEL_ID, type: ChannelType.GuildText, name: 'general' },
    guild_id: invoker.guildId,
    guild_locale: 'en-US',
    guild: { id: invoker.guildId, locale: 'en-US', features: [] },
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

type Scalar = string | number | boolean;

function toOptions(options: Record<string, Scalar>, focused?: string): APIApplicationCommandInteractionDataOption[] {
  return Object.entries(options).map(([name, value]) => {
    const type =
      typeof value === 'number'
        ? ApplicationCommandOptionType.Integer
        : typeof value === 'boolean'
          ? ApplicationCommandOptionType.Boolean
          : ApplicationCommandOptionType.String;
    return { name, type, value, ...(focused === name ? { focused: true } : {}) } as APIApplicationCommandInteractionDataOption;
  });
}

/** `/command [sub] options…` as a CHAT_INPUT interaction. */
export function chatInput(command: string, sub: string | undefined, options: Record<string, Scalar>, invoker: Invoker): APIInteraction {
  const list = toOptions(options);
  return {
    ...base(invoker),
    type: InteractionType.ApplicationCommand,
    data: {
      id: snowflake(),
      name: command,
      type: ApplicationCommandType.ChatInput,
      options: sub ? [{ name: sub, type: ApplicationCommandOptionType.Subcommand, options: list }] : list,
    },
  } as unknown as APIInteraction;
}

/** An APPLICATION_COMMAND_AUTOCOMPLETE interaction with `focused` being typed. */
export function autocomplete(
  command: string,
  sub: string,
  options: Record<string, Scalar>,
  focused: string,
  invoker: Invoker,
): APIInteraction {
  return {
    ...base(invoker),
    type: InteractionType.ApplicationCommandAutocomplete,
    data: {
      id: snowflake(),
      name: command,
      type: ApplicationCommandType.ChatInput,
      options: [{ name: sub, type: ApplicationCommandOptionType.Subcommand, options: toOptions(options, focused) }],
    },
  } as unknown as APIInteraction;
}
