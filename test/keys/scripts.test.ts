import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateSecret, parseSecret } from '../../src/keys/secret.js';
import { KeyStore } from '../../src/keys/store.js';
import { cleanEnv, runScript } from './cli.js';
import { makeTempDir, sampleKey } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let databaseUrl: string;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  databaseUrl = `sqlite://${path.join(dir, 'feedbot.sqlite')}`;
});

afterEach(async () => {
  await cleanup();
});

const guilds = ['600000000000000001', '600000000000000002', '600000000000000003'];

async function seed(secretText: string, ids = guilds): Promise<void> {
  const store = await KeyStore.open({ databaseUrl, secret: parseSecret(secretText) });
  for (const guild of ids) await store.set(guild, sampleKey(`fk_live_CANARY_${guild}`));
  await store.close();
}

describe('npm run secret', () => {
  it('prints one fresh base64 secret of 32 bytes on stdout', async () => {
    const [first, second] = await Promise.all([
      runScript('src/scripts/secret.ts', cleanEnv({})),
      runScript('src/scripts/secret.ts', cleanEnv({})),
    ]);
    expect(first.code).toBe(0);
    expect(first.stdout.endsWith('\n')).toBe(true);
    const lines = first.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(parseSecret(lines[0]!)).toHaveLength(32);
    expect(second.stdout.trim()).not.toBe(first.stdout.trim());
  });
});

describe('npm run keys:rotate', () => {
  it('rotates every record, prints counts, and is safe to re-run', async () => {
    const oldText = generateSecret();
    const newText = generateSecret();
    await seed(oldText);
    const env = cleanEnv({ KEY_ENCRYPTION_SECRET: oldText, NEW_KEY_ENCRYPTION_SECRET: newText, DATABASE_URL: databaseUrl });

    const first = await runScript('src/scripts/rotate-keys.ts', env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('rotated 3, already current 0, failed 0');

    const second = await runScript('src/scripts/rotate-keys.ts', env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('rotated 0, already current 3, failed 0');

    for (const output of [first.stdout, first.stderr, second.stdout, second.stderr]) {
      expect(output).not.toContain(oldText);
      expect(output).not.toContain(newText);
      expect(output).not.toContain('CANARY');
    }
    const store = await KeyStore.open({ databaseUrl, secret: parseSecret(newText) });
    expect((await store.get(guilds[0]!))?.apiKey).toBe(`fk_live_CANARY_${guilds[0]}`);
    await store.close();
  });

  it('exits 1 and lists guild ids it could not rotate', async () => {
    const oldText = generateSecret();
    await seed(oldText, guilds.slice(0, 2));
    await seed(generateSecret(), guilds.slice(2));
    const result = await runScript(
      'src/scripts/rotate-keys.ts',
      cleanEnv({ KEY_ENCRYPTION_SECRET: oldText, NEW_KEY_ENCRYPTION_SECRET: generateSecret(), DATABASE_URL: databaseUrl }),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('rotated 2, already current 0, failed 1');
    expect(result.stdout).toContain(guilds[2]);
  });

  it('exits 2 on bad configuration without echoing secrets', async () => {
    const oldText = generateSecret();
    await seed(oldText, guilds.slice(0, 1));
    const badNew = 'c2hvcnQtc2VjcmV0LXZhbHVl';
    const cases: Array<[NodeJS.ProcessEnv, RegExp]> = [
      [cleanEnv({ KEY_ENCRYPTION_SECRET: oldText, DATABASE_URL: databaseUrl }), /NEW_KEY_ENCRYPTION_SECRET is not set/],
      [
        cleanEnv({ KEY_ENCRYPTION_SECRET: oldText, NEW_KEY_ENCRYPTION_SECRET: badNew, DATABASE_URL: databaseUrl }),
        /NEW_KEY_ENCRYPTION_SECRET must be 32 random bytes in base64/,
      ],
      // Refused as the bot refuses it at start-up (config.ts), since the new secret is what it is started with next.
      [
        cleanEnv({ KEY_ENCRYPTION_SECRET: oldText, NEW_KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 0xfb).toString('base64url'), DATABASE_URL: databaseUrl }),
        /NEW_KEY_ENCRYPTION_SECRET must be 32 random bytes in base64/,
      ],
      [
        cleanEnv({ KEY_ENCRYPTION_SECRET: oldText, NEW_KEY_ENCRYPTION_SECRET: oldText, DATABASE_URL: databaseUrl }),
        /same as KEY_ENCRYPTION_SECRET/,
      ],
      [
        cleanEnv({
          KEY_ENCRYPTION_SECRET: oldText,
          NEW_KEY_ENCRYPTION_SECRET: generateSecret(),
          DATABASE_URL: `sqlite://${path.join(dir, 'missing.sqlite')}`,
        }),
        /does not exist/,
      ],
    ];
    const results = await Promise.all(cases.map(([env]) => runScript('src/scripts/rotate-keys.ts', env)));
    results.forEach((result, index) => {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(cases[index]![1]);
      expect(result.stderr + result.stdout).not.toContain(oldText);
      expect(result.stderr + result.stdout).not.toContain(badNew);
    });
  });
});
