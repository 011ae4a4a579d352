/**
 * The example units are ones systemd itself accepts: `systemd-analyze verify` on each, as an
 * instance where the unit is a template, prints nothing (an unknown or misspelt setting, a value
 * it cannot parse, an ExecReload= or ExecStart= command that does not exist). Skipped with a
 * message where systemd-analyze is not installed; the plain text checks of
 * test/deploy-examples.test.ts run everywhere.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const SYSTEMD = fileURLToPath(new URL('../../docs/deploy/systemd/', import.meta.url));
const available = spawnSync('systemd-analyze', ['--version']).status === 0;
if (!available) console.warn('systemd-analyze not found: skipping `systemd-analyze verify` of docs/deploy/systemd (apt-get install systemd)');

/** Lines about this machine, not the unit: the bot's node lives elsewhere here. */
const ENVIRONMENT_ONLY = /Command \/usr\/bin\/node is not executable/;

describe.skipIf(!available)('systemd-analyze verify docs/deploy/systemd', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'feedbot-units-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['feedbot@.service', 'feedbot@0-3.service'],
    ['feedbot-bg@.service', 'feedbot-bg@blue.service'],
    ['feedbot-bg@.service', 'feedbot-bg@green.service'],
    ['feedbot-sharded.service', 'feedbot-sharded.service'],
  ])('%s (as %s) has nothing systemd would warn about', (file, instance) => {
    copyFileSync(path.join(SYSTEMD, file), path.join(dir, file));
    const run = spawnSync('systemd-analyze', ['verify', '--man=no', path.join(dir, instance)], { encoding: 'utf8', timeout: 30_000 });
    const complaints = `${run.stdout}${run.stderr}`
      .split('\n')
      .filter((line) => line.trim() !== '' && !ENVIRONMENT_ONLY.test(line));
    expect(complaints).toEqual([]);
  });
});
