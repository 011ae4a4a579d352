/** The configured guilds, by id and in order, and the guild each channel belongs to. */
import { normalizeGuild, type NormalizedGuild } from './guilds.js';
import type { EmulatedChannel, EmulatedGuild } from './types.js';

export class GuildDirectory {
  /** In configuration order: the first one is where interactions go when none is named. */
  readonly list: NormalizedGuild[] = [];
  private readonly byId = new Map<string, NormalizedGuild>();
  private readonly channels = new Map<string, { guild: NormalizedGuild; channel: EmulatedChannel }>();

  constructor(guilds: EmulatedGuild[]) {
    for (const input of guilds) this.add(input);
  }

  get(id: string): NormalizedGuild | undefined {
    return this.byId.get(id);
  }

  channel(id: string): { guild: NormalizedGuild; channel: EmulatedChannel } | undefined {
    return this.channels.get(id);
  }

  private add(input: EmulatedGuild): void {
    const guild = normalizeGuild(input);
    if (this.byId.has(guild.id)) throw new Error(`duplicate guild id ${guild.id}`);
    this.byId.set(guild.id, guild);
    this.list.push(guild);
    for (const channel of guild.channels) this.channels.set(channel.id, { guild, channel });
  }
}
