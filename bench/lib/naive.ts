/**
 * Naive baselines: discord.js handlers that call the feed API directly for every interaction,
 * with no cache, no sharing of identical requests and no knowledge of the rate limit. They are
 * what a straightforward bot does, and what feedbot is measured against in scenarios 2 and 3.
 */
import { Events, MessageFlags, type Client } from 'discord.js';
import { request, type Dispatcher } from 'undici';
import { createDiscordClient } from '../../src/bot/discord-client.js';
import { RestCapture } from './discord.js';

export interface NaiveOptions {
  baseUrl: string;
  dispatcher: Dispatcher;
  /** The guild's API key (a naive bot keeps them in memory). */
  keyFor(guildId: string): string;
}

export interface NaiveStats {
  /** Upstream responses by status ('error' for transport failures). */
  statuses: Record<string, number>;
  running: Set<Promise<unknown>>;
  settle(): Promise<void>;
}

function newStats(): NaiveStats {
  const running = new Set<Promise<unknown>>();
  return {
    statuses: {},
    running,
    async settle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

async function get(opts: NaiveOptions, stats: NaiveStats, guildId: string, path: string) {
  try {
    const res = await request(`${opts.baseUrl}${path}`, {
      dispatcher: opts.dispatcher,
      headers: { authorization: `Bearer ${opts.keyFor(guildId)}`, accept: 'application/json' },
    });
    const text = await res.body.text();
    stats.statuses[res.statusCode] = (stats.statuses[res.statusCode] ?? 0) + 1;
    return { status: res.statusCode, headers: res.headers, json: res.statusCode === 200 ? (JSON.parse(text) as unknown) : undefined };
  } catch {
    stats.statuses.error = (stats.statuses.error ?? 0) + 1;
    return { status: 0, headers: {}, json: undefined };
  }
}

interface FeedItem {
  id: number;
  cuenta: string;
}

/** Autocomplete: GET /feeds on every keystroke, filter, answer. */
export function attachNaiveAutocomplete(client: Client, opts: NaiveOptions): NaiveStats {
  const stats = newStats();
  client.on(Events.InteractionCreate, (interaction) => {
    if (!interaction.isAutocomplete() || !interaction.guildId) return;
    const guildId = interaction.guildId;
    const p = (async () => {
      const res = await get(opts, stats, guildId, '/feeds');
      const feeds = ((res.json as { feeds?: FeedItem[] } | undefined)?.feeds ?? []) as FeedItem[];
      const q = String(interaction.options.getFocused()).toLowerCase();
      const choices = feeds
        .filter((f) => !q || String(f.id).startsWith(q) || f.cuenta.toLowerCase().includes(q))
        .slice(0, 25)
        .map((f) => ({ name: `#${f.id} · @${f.cuenta}`, value: f.id }));
      await interaction.respond(choices);
    })().catch(() => undefined);
    stats.running.add(p);
    void p.finally(() => stats.running.delete(p));
  });
  return stats;
}

/** Commands: one upstream GET per command; a 429 is passed on to the user with its reset time. */
export function attachNaiveCommands(client: Client, opts: NaiveOptions): NaiveStats {
  const stats = newStats();
  client.on(Events.InteractionCreate, (interaction) => {
    if (!interaction.isChatInputCommand() || !interaction.guildId) return;
    const guildId = interaction.guildId;
    const sub = interaction.options.getSubcommand(false);
    const path =
      interaction.commandName === 'stats'
        ? '/stats'
        : sub === 'posts'
          ? `/feeds/${interaction.options.getInteger('id', true)}/posts`
          : '/feeds';
    const p = (async () => {
      const res = await get(opts, stats, guildId, path);
      if (res.status === 429) {
        const reset = Number(res.headers['x-ratelimit-reset']);
        await interaction.reply({ content: `Rate limited. Try again <t:${reset}:R>.`, flags: MessageFlags.Ephemeral });
        return;
      }
      if (res.status !== 200) {
        await interaction.reply({ content: `The API answered ${res.status}.`, flags: MessageFlags.Ephemeral });
        return;
      }
      await interaction.reply({ embeds: [{ title: interaction.commandName, description: JSON.stringify(res.json).slice(0, 4000) }] });
    })().catch(() => undefined);
    stats.running.add(p);
    void p.finally(() => stats.running.delete(p));
  });
  return stats;
}

/**
 * A naive bot ready to receive interactions: its own discord.js client with REST captured, the
 * guilds' keys in memory, and the given naive handler attached.
 */
export function startNaiveBot(
  attach: (client: Client, opts: NaiveOptions) => NaiveStats,
  opts: { baseUrl: string; dispatcher: Dispatcher; guilds: { guildId: string; key: string }[] },
): { client: Client; capture: RestCapture; stats: NaiveStats } {
  const capture = new RestCapture();
  const client = createDiscordClient({ rest: capture.rest });
  client.rest.setToken('bench-token-not-real');
  const keys = new Map(opts.guilds.map((g) => [g.guildId, g.key]));
  const stats = attach(client, { baseUrl: opts.baseUrl, dispatcher: opts.dispatcher, keyFor: (g) => keys.get(g)! });
  return { client, capture, stats };
}
