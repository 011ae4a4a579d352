/**
 * A handler's side of the batch runner (src/transfer/batch.ts) for /feed import and bulk delete:
 * its clock, its responder's message as the progress message, and the server whose key a 401 stops.
 */
import type { BatchHandler } from '../transfer/batch.js';
import type { HandlerContext } from './context.js';

export function batchHandler(ctx: HandlerContext): BatchHandler {
  return {
    services: ctx.services,
    guildId: ctx.interaction.guildId,
    locale: ctx.interaction.locale,
    now: () => ctx.now(),
    edit: (payload) => ctx.respond.send(payload),
    logger: ctx.services.logger,
  };
}
