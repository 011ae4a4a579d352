/**
 * Whose key is it? /apikey set ties a key to the guild with everything the key can read, so that
 * one server's admins cannot manage (or read) another server's feeds by pasting its key.
 *
 * The rule:
 *  1. GET /stats `servidor` is the API's own word, and decides when it names a guild: this guild
 *     → verified; another → refused. Every operation of a key acts on that server's data, so a key
 *     the API ties to this guild shows nothing else, wherever its feeds forward to.
 *  2. Otherwise (no `stats:read`, /stats failed or sent no usable id), the channels of the key's
 *     feeds (GET /feeds `canal`): one in this guild → verified; none here and one in another guild
 *     the bot is in → refused. A channel the bot does not know proves nothing: the bot only sees
 *     the guilds it is in (not their threads), and a channel may have been deleted since.
 *  3. Nothing to go on (no feeds, or only unknown channels) → stored as `unverified`, and the
 *     admin is told so and how to get it verified.
 */
import type { Interaction } from 'discord.js';
import type { KeyOwnership } from './render.js';

type OwnershipVerdict =
  /** What the store remembers of the check (src/keys/schema.ts `ownership`). */
  | { verdict: KeyOwnership }
  /** `servidor`: the guild GET /stats named; absent when the feeds' channels proved it. */
  | { verdict: 'foreign'; servidor?: string };

/** Where a channel is, as far as this bot knows. */
export type ChannelPlace = 'here' | 'elsewhere' | 'unknown';

interface OwnershipEvidence {
  /** GET /stats `servidor`, when the key could read it. */
  servidor?: string | undefined;
  /** The channels the key's feeds forward to, when the key could list them. */
  feedChannels?: readonly string[] | undefined;
}

/** A guild id as Discord writes it; anything else in `servidor` proves nothing either way. */
const GUILD_ID = /^\d{17,20}$/;

export function judgeOwnership(guildId: string, evidence: OwnershipEvidence, place: (channelId: string) => ChannelPlace): OwnershipVerdict {
  const { servidor } = evidence;
  if (servidor !== undefined && GUILD_ID.test(servidor)) {
    return servidor === guildId ? { verdict: 'verified' } : { verdict: 'foreign', servidor };
  }
  const places = (evidence.feedChannels ?? []).map(place);
  if (places.includes('here')) return { verdict: 'verified' };
  if (places.includes('elsewhere')) return { verdict: 'foreign' };
  return { verdict: 'unverified' };
}

/**
 * Channel places from the client's caches, which the Guilds intent fills at login with every
 * guild the bot is in and their channels (threads are not cached: they read as unknown). In HTTP
 * mode there is no cache: `guildChannels` (from Discord's REST API) tells what is here, and a
 * channel of another guild reads as unknown, not elsewhere.
 */
export function channelPlaces(interaction: Interaction, guildId: string, guildChannels?: ReadonlyMap<string, string>): (channelId: string) => ChannelPlace {
  const here = interaction.guild?.channels.cache;
  const known = interaction.client.channels.cache;
  return (channelId) => {
    if (here?.has(channelId) || guildChannels?.has(channelId)) return 'here';
    const channel = known.get(channelId);
    if (!channel || channel.isDMBased()) return 'unknown';
    return channel.guildId === guildId ? 'here' : 'elsewhere';
  };
}
