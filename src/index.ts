/**
 * feedbot's entry point (`npm start`): configuration, logging, login, and a clean shutdown.
 */
import { createBot } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { loadEnvFile } from './env-file.js';
import { createLogger } from './logger.js';

loadEnvFile();

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger({ name: 'feedbot', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY });
const bot = await createBot(config, { logger });

// A failure in one interaction is handled by the router; anything that still escapes is logged
// and the process keeps serving the others.
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
process.on('uncaughtException', (error) => logger.error({ err: error }, 'uncaught exception'));

let exiting = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (exiting) return;
    exiting = true;
    logger.info({ signal, inFlight: bot.router.inFlight }, 'shutting down');
    bot.stop().then(
      () => {
        logger.info('stopped');
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  });
}

try {
  await bot.client.login(config.DISCORD_TOKEN);
} catch (error) {
  logger.fatal({ err: error }, 'could not log in to Discord');
  await bot.stop().catch(() => undefined);
  process.exit(1);
}
