/**
 * One bulk overwrite of the commands it is given, slash and context-menu: to a guild (instant, for
 * development) or globally. The entry (src/deploy-commands.ts) hands it the bot's list
 * (src/commands.ts), so this module stays free of commands/ (see test/project.test.ts).
 */
import { REST, Routes, type APIApplication } from 'discord.js';
import type { z } from 'zod';
import { ConfigError, ConfigFields, applicationIdFromToken } from '../config.js';
import type { AppCommand } from '../interactions/command.js';

const DeployConfig = ConfigFields.pick({ DISCORD_TOKEN: true, DISCORD_APPLICATION_ID: true, DISCORD_API_URL: true, DEV_GUILD_ID: true });

export function loadDeployConfig() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = DeployConfig.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => i.message));
  return parsed.data;
}

type DeployConfig = z.infer<typeof DeployConfig>;

export async function deployCommands(config: DeployConfig, commands: readonly Pick<AppCommand, 'data'>[]) {
  const rest = new REST(config.DISCORD_API_URL ? { api: config.DISCORD_API_URL } : {}).setToken(config.DISCORD_TOKEN);
  const applicationId =
    config.DISCORD_APPLICATION_ID ??
    applicationIdFromToken(config.DISCORD_TOKEN) ??
    ((await rest.get(Routes.currentApplication())) as APIApplication).id;
  const body = commands.map((c) => c.data.toJSON());
  const route = config.DEV_GUILD_ID
    ? Routes.applicationGuildCommands(applicationId, config.DEV_GUILD_ID)
    : Routes.applicationCommands(applicationId);
  const result = (await rest.put(route, { body })) as unknown[];
  return { count: result.length, scope: config.DEV_GUILD_ID ? `guild ${config.DEV_GUILD_ID}` : 'global' };
}

