/**
 * The fair naive baseline of scenario 1: a discord.js bot that does, for every `/feed list`, the
 * same work feedbot does — read the guild's API key from Keyv (@keyv/sqlite) and decrypt it
 * (AES-256-GCM), send one undici request to the feed API, reply with the same embed (feedbot's
 * own renderer) — and nothing more: no rate gate, no cache (of keys or of lists), no validation
 * of the stored record or of the API's answer, no deferral timer, no log line, no metrics.
 *
 * `sealedInMemory` is a diagnostic variant: the sealed records sit in a Map instead of SQLite, so
 * it still decrypts per command but skips the database read (the one thing feedbot's key cache
 * saves), isolating the cost of everything else.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyvSqlite } from '@keyv/sqlite';
import { Keyv } from 'keyv';
import { Events, MessageFlags, type Client } from 'discord.js';
import { request, type Dispatcher } from 'undici';
import type { FeedListResponse } from '@feedbot/feed-api-contract';
import { createDiscordClient } from '../../src/bot/discord-client.js';
import { translator } from '../../src/i18n/index.js';
import { feedListView } from '../../commands/feed/render-feeds.js';
import { RestCapture } from './discord.js';

interface SealedKey {
  iv: string;
  tag: string;
  ct: string;
}

function seal(secret: Buffer, apiKey: string): SealedKey {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv);
  const ct = Buffer.concat([cipher.update(apiKey, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ct: ct.toString('base64') };
}

function unseal(secret: Buffer, sealed: SealedKey): string {
  const decipher = createDecipheriv('aes-256-gcm', secret, Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64')), decipher.final()]).toString('utf8');
}

export interface NaiveFairBot {
  client: Client;
  capture: RestCapture;
  setKey(guildId: string, apiKey: string): Promise<void>;
  /** Resolves once every interaction it received has been answered (or failed). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function startNaiveFairBot(opts: { baseUrl: string; dispatcher: Dispatcher; secret: Buffer; sealedInMemory?: boolean }): Promise<NaiveFairBot> {
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-bench-naive-'));
  const keys = new Keyv<SealedKey>(
    opts.sealedInMemory ? { store: new Map(), namespace: 'naive-keys' } : { store: new KeyvSqlite({ uri: `sqlite://${join(dir, 'keys.sqlite')}` }), namespace: 'naive-keys' },
  );
  const capture = new RestCapture();
  const client = createDiscordClient({ rest: capture.rest });
  client.rest.setToken('bench-token-not-real');
  const t = translator('en');
  const running = new Set<Promise<unknown>>();

  client.on(Events.InteractionCreate, (interaction) => {
    if (!interaction.isChatInputCommand() || !interaction.guildId) return;
    const guildId = interaction.guildId;
    const p = (async () => {
      const sealed = await keys.get(guildId);
      if (!sealed) {
        await interaction.reply({ content: 'No API key is set for this server.', flags: MessageFlags.Ephemeral });
        return;
      }
      const res = await request(`${opts.baseUrl}/feeds`, {
        dispatcher: opts.dispatcher,
        headers: { authorization: `Bearer ${unseal(opts.secret, sealed)}`, accept: 'application/json' },
      });
      const list = (await res.body.json()) as FeedListResponse;
      await interaction.reply({ embeds: [feedListView(t, list, { page: 1 }).embed] });
    })().catch(() => undefined);
    running.add(p);
    void p.finally(() => running.delete(p));
  });

  return {
    client,
    capture,
    async setKey(guildId, apiKey) {
      await keys.set(guildId, seal(opts.secret, apiKey));
    },
    async settle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    async close() {
      await client.destroy();
      await keys.disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
