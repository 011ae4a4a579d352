/**
 * The soak's traffic: which guilds act in a simulated minute, and what each user does. Every
 * guild acts every minute; a rotating few are "hot" and send several times their key's budget
 * (100/min), so the API's 429s and the client's local refusals are part of the hour. The mix is
 * deterministic (the sandbox's seeded generator), so a run can be repeated.
 */
import type { APIInteraction } from 'discord-api-types/v10';
export { seededRandom as seeded } from '@feedbot/sandbox';
import { autocomplete, chatInput } from '../../helpers/discord.js';

export type Action = 'list' | 'stats' | 'posts' | 'autocomplete' | 'create' | 'delete' | 'status';

/** How often each action is picked (weights). */
const MIX: [Action, number][] = [
  ['list', 24],
  ['stats', 18],
  ['posts', 14],
  ['autocomplete', 18],
  ['create', 6],
  ['delete', 10],
  ['status', 10],
];
const TOTAL_WEIGHT = MIX.reduce((n, [, w]) => n + w, 0);

export interface TrafficShape {
  guilds: number;
  minutes: number;
  /** Guilds that are hot in a given minute. */
  hotGuilds: number;
  /** Commands per minute of a hot guild (the key's budget is 100). */
  hotPerMinute: number;
  /** Commands per minute of any other guild. */
  calmPerMinute: number;
  /** Share of users with a Spanish client. */
  spanishShare: number;
}

export interface Step {
  guild: number;
  action: Action;
  locale: string;
  /** Who acts: every step a different member (an admin, so every command is allowed). */
  userId: string;
  /** The feed /feed posts reads: different paths, so concurrent reads are not merged into one. */
  postsOf: number;
}

/** The minute's steps, shuffled: hot guilds rotate so that every guild is hot at some point. */
export function minutePlan(minute: number, shape: TrafficShape, random: () => number): Step[] {
  const steps: Step[] = [];
  for (let g = 0; g < shape.guilds; g++) {
    const hot = (g - minute * shape.hotGuilds + shape.guilds * shape.minutes) % shape.guilds < shape.hotGuilds;
    const count = hot ? shape.hotPerMinute : shape.calmPerMinute;
    for (let i = 0; i < count; i++) {
      const userId = String(1_400_000_000_000_000_000n + BigInt(steps.length + minute * 1_000_000));
      const locale = random() < shape.spanishShare ? 'es-ES' : 'en-US';
      steps.push({ guild: g, action: pick(random), locale, userId, postsOf: 1 + Math.floor(random() * 20) });
    }
  }
  for (let i = steps.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [steps[i], steps[j]] = [steps[j]!, steps[i]!];
  }
  return steps;
}

function pick(random: () => number): Action {
  let r = random() * TOTAL_WEIGHT;
  for (const [action, weight] of MIX) {
    r -= weight;
    if (r < 0) return action;
  }
  return 'list';
}

const channel = { channel: { id: '1300000000000000009', name: 'space' } };

/** The interaction a step sends (the delete flow's button press is built from its answer). */
export function interactionFor(step: Step, guildId: string): APIInteraction {
  const invoker = { guildId, locale: step.locale, userId: step.userId };
  switch (step.action) {
    case 'list':
      return chatInput('feed', 'list', {}, invoker);
    case 'stats':
      return chatInput('stats', undefined, {}, invoker);
    case 'posts':
      return chatInput('feed', 'posts', { id: step.postsOf }, invoker);
    case 'autocomplete':
      return autocomplete('feed', 'posts', { id: '' }, 'id', invoker);
    case 'create':
      return chatInput('feed', 'create', { cuenta: 'nasa', canal: channel, tipos: 'post' }, invoker);
    case 'delete':
      return chatInput('feed', 'delete', { id: 1 }, invoker);
    case 'status':
      return chatInput('apikey', 'status', {}, invoker);
  }
}
