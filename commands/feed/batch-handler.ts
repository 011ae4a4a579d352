/**
 * A handler's side of the batch runner (src/transfer/batch.ts) for /feed import and bulk delete:
 * its clock, its responder's message as the progress message, and the server whose key a 401
 * stops; and of the import's steps: the member the audit trail names and the API with the key.
 */
import type { HandlerContext } from '../../src/interactions/context.js';
import type { BatchHandler } from '../../src/transfer/batch.js';
import type { Importer } from '../../src/transfer/importer.js';

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

export function importer(ctx: HandlerContext): Importer {
  return { services: ctx.services, guildId: ctx.guildId(), actor: ctx.actor(), locale: ctx.interaction.locale, call: (op) => ctx.call(op) };
}
