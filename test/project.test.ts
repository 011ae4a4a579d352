/** What the README promises about the project matches what its manifests enforce, and the code's shape holds. */
import { readFileSync, readdirSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
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

// The bot's code runs one way: commands/ builds on src/, and only the composition root (the
// command list, the wiring and the entry points) knows the commands. A library module that reached
// commands/ would tie every test of it, and the deploy script, to every command's imports.
const compositionRoot = ['src/commands.ts', 'src/app.ts', 'src/main.ts', 'src/index.ts', 'src/deploy-commands.ts'];
const rootDir = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(join(rootDir, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(rootDir, join(e.parentPath, e.name)).split(sep).join('/'));
}

/** The project files a module imports (static, re-exported or dynamic), by repository path. */
function importsOf(file: string): string[] {
  const text = read(file);
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm)].map((m) => m[1]!);
  return specifiers.map((s) => posix.normalize(posix.join(posix.dirname(file), s)).replace(/\.js$/, '.ts'));
}

describe('import direction', () => {
  const files = [...sourceFiles('src'), ...sourceFiles('commands')];
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const inCommands = (f: string) => f.startsWith('commands/');

  it('only src/commands.ts, the command list, imports commands/ directly', () => {
    const offenders = files.filter((f) => f.startsWith('src/') && f !== 'src/commands.ts').flatMap((f) => graph.get(f)!.filter(inCommands).map((to) => `${f} -> ${to}`));
    expect(offenders).toEqual([]);
  });

  it('no module of src/ outside the composition root reaches commands/ through its imports', () => {
    const offenders: string[] = [];
    for (const start of files.filter((f) => f.startsWith('src/') && !compositionRoot.includes(f))) {
      const seen = new Set<string>([start]);
      const queue: string[][] = [[start]];
      while (queue.length > 0) {
        const path = queue.shift()!;
        const to = graph.get(path.at(-1)!) ?? [];
        const hit = to.find(inCommands);
        if (hit) {
          offenders.push([...path, hit].join(' -> '));
          break;
        }
        for (const next of to) {
          if (seen.has(next)) continue;
          seen.add(next);
          queue.push([...path, next]);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('commands/ never imports the composition root back', () => {
    const offenders = files.filter(inCommands).flatMap((f) => graph.get(f)!.filter((to) => compositionRoot.includes(to)).map((to) => `${f} -> ${to}`));
    expect(offenders).toEqual([]);
  });
});

describe('rendering beside its feature', () => {
  // Tests and benchmarks may import any renderer; what counts is which parts of the bot use it.
  const files = [...sourceFiles('src'), ...sourceFiles('commands')];
  /** `commands/feed`, `commands/stats`, `src/audit`…: the folder of a command or of a part of src/. */
  const featureOf = (file: string) => file.split('/').slice(0, 2).join('/').replace(/\.ts$/, '');

  it('src/render/ keeps only pieces two or more features share; the rest lives beside its feature', () => {
    const users = new Map<string, Set<string>>();
    for (const file of files) {
      const feature = featureOf(file);
      if (feature === 'src/render') continue;
      for (const to of importsOf(file).filter((f) => f.startsWith('src/render/'))) users.set(to, (users.get(to) ?? new Set()).add(feature));
    }
    const singleFeature = sourceFiles('src/render')
      .map((f) => [f, [...(users.get(f) ?? [])]] as const)
      .filter(([, features]) => features.length < 2)
      .map(([f, features]) => `${f}: ${features.join(', ') || 'no feature'}`);
    expect(singleFeature).toEqual([]);
  });
});
