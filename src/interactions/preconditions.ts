/**
 * Checks a declaration's preconditions before its handler runs; a refusal is a typed user error
 * that explain() turns into the localized answer.
 */
import type { Preconditions } from './command.js';
import type { HandlerContext } from './context.js';

/**
 * The server's settings (audit channel, managers, health checks, digest, forgetting): Manage Server
 * only; feed-manager roles do not extend to them.
 */
export const MANAGES_SETTINGS = { guildOnly: true, requires: { permission: 'ManageGuild', action: 'manageSettings' } } as const satisfies Preconditions;

/** The server's API key: Manage Server; the refusal names the key. */
export const MANAGES_KEY = { guildOnly: true, requires: { permission: 'ManageGuild', action: 'manageKey' } } as const satisfies Preconditions;

export async function checkPreconditions(declared: Preconditions, ctx: HandlerContext): Promise<void> {
  if (declared.guildOnly) ctx.guildId();
  const required = declared.requires;
  if (!required) return;
  if (required.permission === 'ManageFeeds') await ctx.requireFeedManager(required.action);
  else ctx.requireManageGuild(required.action);
}
