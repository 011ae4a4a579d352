/**
 * The plan the API names (`plan` in GET /feeds and GET /stats, `server` on every answer the spec
 * shows) as the reader's language says it. A plan the catalogue knows is translated ("Server" /
 * "Servidor"); any other is left to the caller to show as the API sent it.
 */
import type { MessageKey, Translator } from './index.js';

const KNOWN_PLANS: Readonly<Record<string, MessageKey>> = { server: 'plan.server' };

/** The catalogue's name of `plan`, or undefined for a plan it does not know. */
export function knownPlanName(t: Translator, plan: string): string | undefined {
  return Object.hasOwn(KNOWN_PLANS, plan) ? t(KNOWN_PLANS[plan]!) : undefined;
}
