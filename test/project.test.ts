/** What the README promises about the project matches what its manifests enforce. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const engines = (path: string) => (JSON.parse(read(path)) as { engines: { node: string } }).engines.node;

describe('project', () => {
  it('README and every package.json agree on the minimum Node version', () => {
    const stated = /Node\.js \*\*>= (\d+\.\d+\.\d+)\*\* is required/.exec(read('README.md'))?.[1];
    expect(stated).toBeDefined();
    const root = JSON.parse(read('package.json')) as { workspaces: string[] };
    for (const manifest of ['package.json', ...root.workspaces.map((w) => `${w}/package.json`)]) {
      expect(engines(manifest), manifest).toBe(`>=${stated}`);
    }
  });
});
