/**
 * Turns a raw interaction (a verified HTTP body) into the discord.js Interaction the gateway
 * path would have built, and emits it as `interactionCreate`. discord.js has no public entry
 * for interactions received over HTTP; its gateway handler for INTERACTION_CREATE is this
 * action, and the end-to-end suite runs every command through it in HTTP mode, so a discord.js
 * release that changes it fails there first.
 */
import type { Client } from 'discord.js';

interface WithInteractionAction {
  actions: { InteractionCreate: { handle(data: unknown): void } };
}

export function emitInteraction(client: Client, raw: Record<string, unknown>): void {
  (client as unknown as WithInteractionAction).actions.InteractionCreate.handle(raw);
}
