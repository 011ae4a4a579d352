/**
 * One demo per data directory. Two demos sharing `data/demo` would each regenerate the demo key
 * and break the other one's bot, so the second one refuses to start and says where the first one
 * is. The lock is a file holding the owner's pid and playground URL; a lock whose process is gone
 * is stale and taken over.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'demo.lock';

interface LockContent {
  pid: number;
  url?: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockContent,
  ) {
    const where = holder.url ? ` at ${holder.url}` : ' (still starting)';
    super(
      `another feedbot demo is already running with ${dataDir} (pid ${holder.pid})${where}. ` +
        'Use that one, stop it first (Ctrl-C in its terminal), or start this one with its own folder: DEMO_DATA_DIR=data/demo2 npm run demo',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  /** Records the playground URL, so a second demo can point to it. */
  announce(url: string): void;
  release(): void;
}

/** Lock files this process wrote: its own pid in a lock file is only "held" if it is one of these. */
const heldHere = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockContent | undefined {
  try {
    const content = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockContent>;
    return Number.isSafeInteger(content.pid) && content.pid! > 0 ? { pid: content.pid!, ...(typeof content.url === 'string' ? { url: content.url } : {}) } : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the data directory (which must exist) or throws DataDirLockedError. */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify({ pid: process.pid }), { flag: 'wx', mode: 0o600 });
      heldHere.add(file);
      let released = false;
      return {
        announce(url) {
          if (!released) writeFileSync(file, JSON.stringify({ pid: process.pid, url }), { mode: 0o600 });
        },
        release() {
          if (released) return;
          released = true;
          heldHere.delete(file);
          if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(file);
      const held = holder && (holder.pid === process.pid ? heldHere.has(file) : isAlive(holder.pid));
      if (holder && held) throw new DataDirLockedError(dataDir, holder);
      rmSync(file, { force: true }); // stale: its demo is gone
    }
  }
  throw new Error(`could not lock ${dataDir}: ${file} keeps reappearing`);
}
