/**
 * The running HealthSweeps of a bot, found from its services by the commands that show or change
 * them (`/feedbot digest`, `/feedbot audit-channel status`). Kept beside the services rather than
 * in them so that a bot without sweeps (tests, tools) needs nothing.
 */
import type { BotServices } from '../../bot/context.js';
import type { HealthSweeps } from './index.js';

const attached = new WeakMap<BotServices, HealthSweeps>();

export function attachSweeps(services: BotServices, sweeps: HealthSweeps): void {
  attached.set(services, sweeps);
}

export function sweepsOf(services: BotServices): HealthSweeps | undefined {
  return attached.get(services);
}
