/**
 * Holds what a discord.js client emits until the bot's listeners are attached, then emits it in
 * the order it came. It lets login run while the key and settings stores open (a shorter start-up)
 * without an interaction, a deleted channel or the ready event reaching a client that nobody
 * listens to yet. discord.js does not listen to its own client's events while it logs in, so
 * nothing inside it waits on what is held.
 */
import { Events, type Client } from 'discord.js';

/**
 * Never held, delivered to whoever listens now: raw packets repeat every gateway dispatch (a login
 * to 10,000 servers is 10,000 raw GUILD_CREATEs, each with its channels and roles), debug lines
 * come with each of them, and the bot listens to neither. Holding them raised the RSS at READY by
 * about 20 MB at 10,000 servers (bench scenario 5).
 */
const NEVER_HELD: ReadonlySet<string | symbol> = new Set([Events.Raw, Events.Debug]);

interface HeldEvents {
  /** Emits what was held, in order, and lets later events through as they come. Idempotent. */
  release(): void;
}

export function holdEvents(client: Client): HeldEvents {
  const held: [string | symbol, unknown[]][] = [];
  const emit = client.emit.bind(client) as (event: string | symbol, ...args: unknown[]) => boolean;
  // An own property shadows the prototype's emit until release() deletes it.
  Object.defineProperty(client, 'emit', {
    configurable: true,
    writable: true,
    // What emit() returns: whether anyone listens now. discord.js reads it only to warn about a
    // deprecated event name ('ready') that somebody listens to.
    value: (event: string | symbol, ...args: unknown[]) => {
      if (NEVER_HELD.has(event)) return emit(event, ...args);
      held.push([event, args]);
      return client.listenerCount(event as never) > 0;
    },
  });
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      delete (client as { emit?: unknown }).emit;
      for (const [event, args] of held.splice(0)) emit(event, ...args);
    },
  };
}
