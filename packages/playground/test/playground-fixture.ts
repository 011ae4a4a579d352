/**
 * The playground server alone, for tests of its routes without the bot, the sandbox or a browser:
 * nothing answers behind the sandbox origin, and the bot is reported offline unless a test double plays it.
 */
import type { DiscordEmulator } from '@feedbot/discord-emulator';
import type { ActorKey, PlaygroundActor } from '../src/actors.js';
import { silentLogger } from '../src/log.js';
import { startPlayground, type RunningPlayground } from '../src/playground.js';

const nobody: PlaygroundActor = { userId: '1', username: 'x', displayName: 'x', permissions: '0', avatar: '' };

/** `botRunning`: whether the page is told the bot is up (a test double logged in as the bot: true). */
export function startBarePlayground(
  emulator: DiscordEmulator,
  guildId: string,
  actors: Record<ActorKey, PlaygroundActor> = { admin: nobody, member: nobody },
  opts: { botRunning?: boolean } = {},
): Promise<RunningPlayground> {
  return startPlayground({
    emulator,
    guildId,
    actors,
    botAvatar: '',
    sandboxOrigin: 'https://127.0.0.1:9',
    sandboxCaPem: '',
    demoKey: '',
    notes: () => [],
    botRunning: () => opts.botRunning ?? false,
    port: 0,
    logger: silentLogger(),
  });
}
