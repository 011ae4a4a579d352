/**
 * An empty variable means unset. `SANDBOX_PORT=` (as a copied .env.example or compose's
 * env_file hands it over) must give the default port, not port 0, and so on for every setting.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_DATA_DIR, DEFAULT_PORT } from '../src/server.js';
import { parseSandboxEnv } from '../src/index.js';

describe('parseSandboxEnv', () => {
  it('reads every empty variable as unset: the defaults', () => {
    const empty = Object.fromEntries(
      ['SANDBOX_DATA_DIR', 'SANDBOX_PORT', 'SANDBOX_HOST', 'SANDBOX_SEED', 'SANDBOX_SIMULATE_MS', 'SANDBOX_TLS_CERT', 'SANDBOX_TLS_KEY', 'SANDBOX_TLS_CA', 'LOG_LEVEL'].map((name) => [name, '']),
    );
    expect(parseSandboxEnv(empty)).toEqual(parseSandboxEnv({}));
    expect(parseSandboxEnv(empty)).toMatchObject({ SANDBOX_PORT: DEFAULT_PORT, SANDBOX_DATA_DIR: DEFAULT_DATA_DIR, SANDBOX_HOST: '127.0.0.1', LOG_LEVEL: 'info' });
  });

  it('still takes 0 when it is written', () => {
    expect(parseSandboxEnv({ SANDBOX_PORT: '0' }).SANDBOX_PORT).toBe(0);
  });
});
