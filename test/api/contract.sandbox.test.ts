/**
 * The same client contract as contract.fake.test.ts, against the real sandbox over HTTPS on
 * 127.0.0.1 — trusting its self-signed certificate, never turning TLS checks off.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll } from 'vitest';
import { SCOPES } from '@feedbot/feed-api-contract';
import { startSandbox, type RunningSandbox } from '@feedbot/sandbox';
import { silentLogger } from '../../src/logger.js';
import { describeFeedApiContract } from './contract-suite.js';

const GUILD = '1100000000000000077';
const dir = mkdtempSync(join(tmpdir(), 'feedbot-contract-'));
let running: Promise<{ sandbox: RunningSandbox; agent: Agent; fullKey: string }> | undefined;

function sandbox() {
  running ??= (async () => {
    const sandbox = await startSandbox({ dataDir: dir, port: 0, seed: false, logger: silentLogger() });
    await sandbox.admin.createServer(GUILD, 'server');
    const fullKey = await sandbox.admin.generateKey(GUILD, [...SCOPES]);
    return { sandbox, agent: new Agent({ connect: { ca: sandbox.caPem } }), fullKey };
  })();
  return running;
}

afterAll(async () => {
  if (running) {
    const { sandbox, agent } = await running;
    await agent.close();
    await sandbox.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

describeFeedApiContract('sandbox over HTTPS', async () => {
  const { sandbox: s, agent, fullKey } = await sandbox();
  s.resetRateLimits();
  return {
    baseUrl: s.url,
    dispatcher: agent,
    guildId: GUILD,
    fullKey,
    invalidKey: 'fbk_ThisKeyWasNeverIssuedByTheSandbox00',
    // A scratch server per key: generating a key for GUILD would invalidate fullKey.
    async keyWithScopes(scopes) {
      return (await s.admin.createScratchServer(scopes)).key;
    },
    close: async () => undefined,
  };
});
