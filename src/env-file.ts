/**
 * The environment every entry point starts from: `.env` from the working directory when there is
 * one (variables already set in the real environment win, as with Node's own --env-file), then
 * every empty variable removed.
 *
 * An empty variable means unset, everywhere: `.env.example` ships lines such as `SHARD_COUNT=`,
 * and compose's `env_file: .env` hands them to the process as empty strings in the real
 * environment. feedbot's config already reads '' as unset, but discord.js reads process.env
 * itself (SHARD_COUNT through Number('') is 0, SHARDS through JSON.parse('') throws), and so may
 * any other library. Each entry point calls loadEnvFile() before it builds anything from the
 * environment; children it starts inherit the cleaned environment.
 */
import { existsSync } from 'node:fs';

export function loadEnvFile(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
  dropEmptyVariables(process.env);
}

/** Deletes every variable whose value is the empty string (a blank one, ' ', is a value). */
export function dropEmptyVariables(env: NodeJS.ProcessEnv = process.env): void {
  for (const [name, value] of Object.entries(env)) if (value === '') delete env[name];
}
