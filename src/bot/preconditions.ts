/**
 * Checks a declaration's preconditions before its handler runs; a refusal is a typed user error
 * that explain() turns into the localized answer.
 */
import type { Preconditions } from './command.js';
import type { HandlerContext } from './context.js';

export function checkPreconditions(declared: Preconditions, ctx: HandlerContext): void {
  if (declared.guildOnly) ctx.guildId();
  if (declared.requires) ctx.requireManageGuild(declared.requires.action);
}
