/**
 * Loads `.env` from the working directory when there is one. Variables already set in the real
 * environment win, as with Node's own --env-file.
 */
import { existsSync } from 'node:fs';

export function loadEnvFile(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
