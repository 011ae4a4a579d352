/**
 * One demo per data directory: a second `npm run demo` on the same folder refuses with the first
 * one's URL instead of regenerating its key; a lock left by a demo that died is taken over.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../src/data-lock.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'demo-lock-'));
  dirs.push(dir);
  return dir;
}

/** Another live process, standing for a demo started in another terminal. */
function otherProcess(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

describe('demo data directory lock', () => {
  it('refuses while another live demo holds the folder, naming its URL and the way out', () => {
    const dir = tempDir();
    const other = otherProcess();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: other.pid, url: 'http://127.0.0.1:8080' }));
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir)).toThrow(/already running .*http:\/\/127\.0\.0\.1:8080.*DEMO_DATA_DIR=/);
  });

  it('takes over a lock whose demo is gone, and releases it on close', async () => {
    const dir = tempDir();
    const other = otherProcess();
    const gone = new Promise((resolve) => other.once('exit', resolve));
    other.kill('SIGKILL');
    await gone;
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: other.pid, url: 'http://127.0.0.1:8080' }));
    const lock = lockDataDir(dir);
    lock.announce('http://127.0.0.1:9999');
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toEqual({ pid: process.pid, url: 'http://127.0.0.1:9999' });
    expect(() => lockDataDir(dir)).toThrow(/127\.0\.0\.1:9999/);
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    lockDataDir(dir).release();
  });

  it('treats an unreadable lock file as stale', () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), 'not json');
    const lock = lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toEqual({ pid: process.pid });
    lock.release();
  });
});
