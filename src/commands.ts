/** Every slash command the bot has, for the router and the deploy script. */
import * as apikey from '../commands/apikey.js';
import * as feed from '../commands/feed.js';
import * as stats from '../commands/stats.js';
import type { CommandModule } from './bot/command.js';

export const commands: readonly CommandModule[] = [feed, stats, apikey];
