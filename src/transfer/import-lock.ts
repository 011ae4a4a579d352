/**
 * One running import per server, across the replicas. A preview's own claim only stops two
 * presses of the same preview; two previews (the same file run twice, or two files naming the
 * same feed) would each re-list the feeds before the other created anything, and both create
 * them. The hold lives in the pending store beside the previews (Redis with REDIS_URL), so a
 * press on another replica sees it too.
 */
import type { BotServices } from '../interactions/context.js';
import { INTERACTION_TOKEN_LIFETIME_MS } from './batch.js';

interface ImportLock {
  /** Never throws: a hold that cannot be released lapses by itself. */
  release(): Promise<void>;
}

const lockKey = (guildId: string) => `import-guild:${guildId}`;

/**
 * Holds the server's import for this press (its interaction id owns it); undefined when another
 * import of the server holds it. Held at most an interaction token's lifetime, the longest an
 * import can run: a hold left by a replica that died mid-run lapses then.
 */
export async function claimServerImport(services: Pick<BotServices, 'pending' | 'logger'>, guildId: string, interactionId: string): Promise<ImportLock | undefined> {
  const { pending, logger } = services;
  const [key, owner] = [lockKey(guildId), interactionId];
  if (!(await pending.claim(key, owner, INTERACTION_TOKEN_LIFETIME_MS))) return undefined;
  return {
    release: () =>
      pending.release(key, owner).catch((error: unknown) => logger.warn({ err: error }, "could not release a server's import hold; it lapses by itself")),
  };
}
