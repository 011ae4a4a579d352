/**
 * `npm run deploy-commands`: registers every command with one bulk overwrite — to DEV_GUILD_ID
 * when set (instant, for development), globally otherwise. Run it when commands change, not on
 * every start (Discord allows 200 command creates per day per guild).
 */
import { ConfigError, tokenRefusal } from './config.js';
import { deployCommands, loadDeployConfig } from './bot/deploy.js';
import { commands } from './commands.js';
import { loadEnvFile } from './env-file.js';

loadEnvFile();

try {
  const { count, scope } = await deployCommands(loadDeployConfig(), commands);
  console.log(`Registered ${count} commands (${scope}).`);
} catch (error) {
  const message = error instanceof ConfigError ? error.message : (tokenRefusal(error) ?? `Could not register commands: ${(error as Error).message}`);
  console.error(message);
  process.exit(1);
}
