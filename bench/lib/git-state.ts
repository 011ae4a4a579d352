/** The commit a run measured, recorded with its figures so a before and an after can be named. */
import { execFileSync } from 'node:child_process';
import type { GitState } from './report.js';

/** undefined when git or the repository is not there (an unpacked tarball, a production install). */
export function describeGit(cwd: string): GitState | undefined {
  const git = (...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    return { commit, dirty: git('status', '--porcelain').length > 0 };
  } catch {
    return undefined;
  }
}
