/** Hands a raw payload to discord.js the way its gateway handler does, without a gateway. */
import type { APIInteraction } from 'discord-api-types/v10';
import type { Client } from 'discord.js';

interface WithActions {
  actions: { InteractionCreate: { handle(data: unknown): void } };
}

/**
 * discord.js builds the Interaction and emits `interactionCreate` synchronously, before this
 * returns. Its internal action is the only entry point short of a gateway connection.
 */
export function dispatchInteraction(client: Client, raw: APIInteraction): void {
  (client as unknown as WithActions).actions.InteractionCreate.handle(raw);
}
