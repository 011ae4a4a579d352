/**
 * Checks a declaration's preconditions before its handler runs; a refusal is a typed user error
 * that explain() turns into the localized answer.
 */
import type { Preconditions } from './command.js';
import type { HandlerContext } from './context.js';

export async function checkPreconditions(declared: Preconditions, ctx: HandlerContext): Promise<void> {
  if (declared.guildOnly) ctx.guildId();
  const required = declared.requires;
  if (!required) return;
  if (required.permission === 'ManageFeeds') await ctx.requireFeedManager(required.action);
  else ctx.requireManageGuild(required.action);
}
