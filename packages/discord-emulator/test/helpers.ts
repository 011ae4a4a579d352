/** Shared fixtures for the emulator tests: an emulator plus a real, unmodified discord.js client. */
import { once } from 'node:events';
import { Client, Events, GatewayIntentBits, type ClientOptions } from 'discord.js';
import { startEmulator, type DiscordEmulator, type EmulatedGuild, type EmulatorOptions } from '../src/index.js';

export const APP_ID = '111111111111111111';
export const TOKEN = 'MTExMTExMTExMTExMTExMTEx.emulator.test-token-not-a-secret';
export const GUILD_ID = '222222222222222222';
export const CHANNEL_ID = '222222222222222223';
export const OTHER_CHANNEL_ID = '222222222222222224';
export const ADMIN_ROLE_ID = '222222222222222225';
export const USER_ID = '333333333333333333';

export const GUILD: EmulatedGuild = {
  id: GUILD_ID,
  name: 'Test Guild',
  ownerId: '444444444444444444',
  locale: 'es-ES',
  channels: [
    { id: CHANNEL_ID, name: 'general', type: 0 },
    { id: OTHER_CHANNEL_ID, name: 'feeds', type: 0 },
  ],
  roles: [{ id: ADMIN_ROLE_ID, name: 'Admin', permissions: '8' }],
  members: [{ userId: USER_ID, username: 'alice', roles: [] }],
};

export function emulatorOptions(overrides: Partial<EmulatorOptions> = {}): EmulatorOptions {
  return { applicationId: APP_ID, botToken: TOKEN, guilds: [GUILD], ...overrides };
}

export async function startTestEmulator(overrides: Partial<EmulatorOptions> = {}): Promise<DiscordEmulator> {
  return startEmulator(emulatorOptions(overrides));
}

/** Logs a client in against the emulator and waits for `clientReady` (all guilds received). */
export async function loginClient(emu: DiscordEmulator, options: Partial<ClientOptions> = {}, token = TOKEN): Promise<Client> {
  const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emu.apiUrl }, ...options });
  const ready = once(client, Events.ClientReady, { signal: AbortSignal.timeout(10_000) });
  await client.login(token);
  await ready;
  return client;
}

export const SIMPLE_COMMANDS = [
  {
    name: 'feed',
    description: 'Manage feeds',
    options: [
      {
        type: 1,
        name: 'add',
        description: 'Add a feed',
        options: [
          { type: 3, name: 'handle', description: 'Account handle', required: true, autocomplete: true },
          { type: 7, name: 'channel', description: 'Target channel', required: false },
          { type: 4, name: 'interval', description: 'Minutes', required: false, choices: [{ name: 'five', value: 5 }, { name: 'ten', value: 10 }] },
        ],
      },
      { type: 1, name: 'list', description: 'List feeds' },
    ],
  },
  { name: 'ping', description: 'Ping' },
  { name: 'admin', description: 'Admin only', default_member_permissions: '32' },
];

/** A control API answer; read field by field in assertions, where typing each shape would add nothing. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ControlAnswer = { status: number; json: any };

/** A JSON request to the control API (`path` after `/_emulator`); every POST declares JSON, even bodyless (request-guard.ts). */
export async function control(emu: DiscordEmulator, method: string, path: string, body?: unknown): Promise<ControlAnswer> {
  const res = await fetch(`${emu.controlUrl}${path}`, {
    method,
    headers: body === undefined && method !== 'POST' ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}
