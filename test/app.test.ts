/** The wired bot: every component's log lines name their component once. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBot } from '../src/app.js';
import { createLogger } from '../src/logger.js';

describe('createBot', () => {
  it('the key store logs `component` once (it names itself; the app adds nothing)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'feedbot-app-'));
    const lines: string[] = [];
    const logger = createLogger({ name: 'feedbot', level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
    const bot = await createBot(
      {
        FEED_API_URL: 'https://feeds.test/v1',
        KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 3),
        KEY_ENCRYPTION_SECRET_PREVIOUS: undefined,
        DATABASE_URL: `sqlite://${join(dir, 'keys.sqlite')}`,
        DISCORD_API_URL: undefined,
        FEED_API_TIMEOUT_MS: 1000,
      },
      { logger, drainTimeoutMs: 100 },
    );
    try {
      const opened = lines.find((line) => line.includes('key store opened'));
      expect(opened).toBeDefined();
      expect(opened!.match(/"component":/g)).toHaveLength(1);
      expect(JSON.parse(opened!)).toMatchObject({ component: 'key-store' });
    } finally {
      await bot.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
