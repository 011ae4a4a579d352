/**
 * Every story of the guide, in the order they run (each in English, then in Spanish). Stories
 * that change what later ones see (keys, feeds, roles) put things back before they end; the
 * audit channel, once set, stays; the health sweep skips made-up hours, so it runs just before
 * the outage, which cannot be undone and runs last.
 */
import type { Story } from '../story.js';
import { apiKeyStories } from './api-key.js';
import { auditStories } from './audit.js';
import { errorStories, outageStory } from './errors.js';
import { feedStories } from './feeds.js';
import { healthStories } from './health.js';
import { managerStories } from './managers.js';
import { settingsStories } from './settings.js';
import { transferStories } from './transfer.js';
import { watchingStories } from './watching.js';

export const STORIES: readonly Story[] = [
  ...apiKeyStories,
  ...feedStories,
  ...auditStories,
  ...healthStories,
  ...settingsStories,
  ...managerStories,
  ...transferStories,
  ...errorStories,
  // Skips made-up hours (health sweeps): only the outage comes after.
  ...watchingStories,
  outageStory,
];
