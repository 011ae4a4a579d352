/**
 * `npm run build` for the tests that run the compiled bot (what `npm start` runs). Vitest runs
 * test files in parallel: two `tsc -b` writing dist/ at once, or one writing while another test's
 * bot loads from it, would be a race. A lock folder makes the builds take turns; the second one
 * finds dist/ up to date and is a no-op (tsc -b is incremental), so a bot never loads a half-written file.
 */
import { execFile } from 'node:child_process';
import { mkdir, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const LOCK = join(ROOT, 'node_modules', '.cache', 'feedbot-test-build.lock');
/** A lock older than this was left by a killed run: a build takes well under it. */
const STALE_LOCK_MS = 300_000;

async function acquire(deadline: number): Promise<void> {
  await mkdir(join(LOCK, '..'), { recursive: true });
  for (;;) {
    try {
      await mkdir(LOCK);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(LOCK).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (age > STALE_LOCK_MS) await rmdir(LOCK).catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`another test's build still holds ${LOCK}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

export async function buildOnce(timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await acquire(deadline);
  try {
    await promisify(execFile)('npm', ['run', '-s', 'build'], { cwd: ROOT, timeout: Math.max(1_000, deadline - Date.now()) });
  } finally {
    await rmdir(LOCK).catch(() => undefined);
  }
}
