/**
 * What the feed service's side does in the guide's stories, through the sandbox: issue a key
 * (fixed ones, so the masked key in a picture is the same on every run), spend a key's request
 * budget, take the service down.
 */
import { Agent, request } from 'undici';
import { SCOPES, type Scope } from '@feedbot/feed-api-contract';
import { DEMO_GUILD_ID } from '@feedbot/sandbox';
import type { RunningDemo } from '../demo.js';

/** A fixed key: fbk_, the label padded with zeros to 36 characters, then the 4 the bot shows. */
const fixedKey = (label: string, last4: string): string => `fbk_${label.padEnd(36, '0')}${last4}`;

/** Keys the dashboard "generates" in the stories. */
export const DOCS_KEYS = {
  /** Every scope: what the guide tells admins to create. */
  full: fixedKey('GuideKeyAllScopes', 'Qx7A'),
  /** Only feeds:read. */
  readOnly: fixedKey('GuideKeyReadOnly', 'Rd3B'),
  /** The key after someone regenerated it in the dashboard. */
  regenerated: fixedKey('GuideKeyRegenerated', 'Nw5C'),
  /** Never issued: the API refuses it. */
  wrong: fixedKey('GuideKeyNeverIssued', 'Xx9D'),
} as const;

/** Makes `key` the demo server's key (the previous one stops working), with these scopes. */
export async function issueKey(demo: RunningDemo, key: string, scopes: readonly Scope[] = SCOPES): Promise<void> {
  await demo.stack.sandbox.admin.generateKey(DEMO_GUILD_ID, scopes, { key });
}

/** Spends `key`'s request budget for the current window, as a busy server would; returns the reset (Unix s). */
export async function spendBudget(demo: RunningDemo, key: string): Promise<number> {
  const agent = new Agent({ connect: { ca: demo.stack.sandbox.caPem } });
  try {
    for (let i = 0; i < 1000; i++) {
      const res = await request(`${demo.stack.sandbox.url}/stats`, { dispatcher: agent, headers: { authorization: `Bearer ${key}` } });
      await res.body.dump();
      if (res.statusCode === 429) return Number(res.headers['x-ratelimit-reset']);
      if (res.statusCode !== 200) throw new Error(`GET /stats answered ${res.statusCode} while spending the budget`);
    }
    throw new Error('the sandbox never refused: no rate limit?');
  } finally {
    await agent.close();
  }
}

/** The feed service goes away: every later request of the bot fails to connect. */
export async function takeServiceDown(demo: RunningDemo): Promise<void> {
  await demo.stack.sandbox.close();
}
