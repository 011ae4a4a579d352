import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateSecret, parseSecret } from '../../src/keys/secret.js';
import { KeyStore } from '../../src/keys/store.js';
import { ROOT, cleanEnv } from './cli.js';
import { makeTempDir } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let child: ChildProcess | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  await cleanup();
});

describe('durability', () => {
  it('keeps every acknowledged write when the writer is SIGKILLed mid-stream', async () => {
    const secretText = generateSecret();
    const databaseUrl = `sqlite://${path.join(dir, 'feedbot.sqlite')}`;
    const acked: string[] = [];
    // node --import tsx, not the tsx CLI: the CLI runs the script in a grandchild, which SIGKILL
    // on the CLI would leave running.
    const proc = spawn(process.execPath, ['--conditions=@feedbot/source', '--import', 'tsx', path.join(ROOT, 'test/keys/fixtures/writer.ts')], {
      cwd: ROOT,
      env: cleanEnv({ DATABASE_URL: databaseUrl, KEY_ENCRYPTION_SECRET: secretText }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`writer produced too few acks; stderr: ${stderr}`)), 20_000);
      let buffered = '';
      proc.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          // Acks read before the kill are exactly the writes the writer had seen resolve.
          if (line.startsWith('ack ')) acked.push(line.slice(4));
        }
        if (acked.length >= 40 && proc.signalCode === null) {
          proc.kill('SIGKILL');
          clearTimeout(timer);
          resolve();
        }
      });
      proc.on('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    expect(await exited).toBe('SIGKILL');
    expect(acked.length).toBeGreaterThanOrEqual(40);
    const ackedBeforeDeath = [...acked];

    const store = await KeyStore.open({ databaseUrl, secret: parseSecret(secretText), cacheSize: 0 });
    try {
      for (const guild of ackedBeforeDeath) {
        const index = Number(BigInt(guild) - 500000000000000000n);
        expect((await store.get(guild))?.apiKey).toBe(`fk_live_durable_${index}`);
      }
      // A write cut off by the kill is either absent or whole: nothing half-written is left.
      const audit = await store.audit();
      expect(audit.malformed).toEqual([]);
      expect(audit.unknownSecret).toEqual([]);
      expect(audit.total).toBeGreaterThanOrEqual(ackedBeforeDeath.length);
    } finally {
      await store.close();
    }
  });
});
