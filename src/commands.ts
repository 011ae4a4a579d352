/**
 * Every command the bot has (slash and context-menu): part of the composition root with app.ts and
 * the entry points, the only module of src/ that imports commands/ (test/project.test.ts).
 */
import { apikeyCommand } from '../commands/apikey.js';
import { createFeedCommand } from '../commands/feed/index.js';
import { feedOfPostCommand } from '../commands/feed/of-post.js';
import { feedbotCommand } from '../commands/feedbot/index.js';
import { statsCommand } from '../commands/stats.js';
import type { AppCommand } from './interactions/command.js';

/** A fresh set for one running bot: what a command holds (timers) is released by its dispose(). */
export function createCommands(): AppCommand[] {
  return [createFeedCommand(), statsCommand, apikeyCommand, feedbotCommand, feedOfPostCommand];
}

/** The definitions (`data`), for the deploy script and checks; a running bot uses createCommands(). */
export const commands: readonly AppCommand[] = createCommands();
