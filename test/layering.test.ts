/**
 * One direction inside src/ too: its first-level parts (folders such as bot/, http/, ops/ and
 * single modules such as config.ts) import each other without a cycle, counting runtime imports
 * only (static, re-exported and dynamic; `import type` is erased). A cycle among parts means no
 * part can be read, tested or replaced without the others.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const rootDir = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(join(rootDir, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(rootDir, join(e.parentPath, e.name)).split(sep).join('/'));
}

/** Runtime imports of a module (what survives compilation), as repository paths. */
export function runtimeImports(file: string, text: string): string[] {
  const specifiers: string[] = [];
  // import … from '…' and export … from '…', unless type-only (the whole clause, or every name in braces).
  for (const m of text.matchAll(/^\s*(import|export)\s+([^;]*?)\s*from\s*'(\.{1,2}\/[^']+)'/gms)) {
    const clause = m[2]!.trim();
    if (clause.startsWith('type ')) continue;
    const braces = /^\{([^}]*)\}$/.exec(clause);
    if (braces && braces[1]!.split(',').every((name) => name.trim() === '' || name.trim().startsWith('type '))) continue;
    specifiers.push(m[3]!);
  }
  // Side-effect imports and dynamic imports.
  for (const m of text.matchAll(/^\s*import\s*'(\.{1,2}\/[^']+)'/gm)) specifiers.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)) specifiers.push(m[1]!);
  return specifiers.map((s) => posix.normalize(posix.join(posix.dirname(file), s)).replace(/\.js$/, '.ts'));
}

/** `src/interactions/router.ts` → `interactions`; `src/config.ts` → `config.ts`. */
const partOf = (file: string) => file.split('/')[1]!;

/** The cycles of a graph: its strongly connected components of two or more nodes (Tarjan). */
export function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        component.push(w);
        if (w === v) break;
      }
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('layering inside src/', () => {
  it('finds type-only imports erased and every runtime form kept', () => {
    const text = [
      "import type { A } from './a.js';",
      "import { type B, type C } from './b.js';",
      "import { D, type E } from './d.js';",
      "export { F } from '../f.js';",
      "export type { G } from './g.js';",
      "import './side.js';",
      "const h = await import('./h.js');",
    ].join('\n');
    expect(runtimeImports('src/x/y.ts', text)).toEqual(['src/x/d.ts', 'src/f.ts', 'src/x/side.ts', 'src/x/h.ts']);
  });

  it('the cycle finder finds a cycle and only a cycle', () => {
    const graph = (edges: [string, string][]) => {
      const g = new Map<string, Set<string>>();
      for (const [a, b] of edges) g.set(a, new Set([...(g.get(a) ?? []), b]));
      return g;
    };
    expect(cyclesOf(graph([['a', 'b'], ['b', 'c'], ['a', 'c']]))).toEqual([]);
    expect(cyclesOf(graph([['a', 'b'], ['b', 'c'], ['c', 'a'], ['c', 'd']]))).toEqual([['a', 'b', 'c']]);
  });

  it('no runtime import cycle between its first-level parts', () => {
    const graph = new Map<string, Set<string>>();
    const why = new Map<string, string>();
    for (const file of sourceFiles('src')) {
      for (const target of runtimeImports(file, readFileSync(join(rootDir, file), 'utf8'))) {
        if (!target.startsWith('src/')) continue;
        const [from, to] = [partOf(file), partOf(target)];
        if (from === to) continue;
        graph.set(from, new Set([...(graph.get(from) ?? []), to]));
        why.set(`${from} → ${to}`, `${file} → ${target}`);
      }
    }
    const cycles = cyclesOf(graph).map((parts) => ({
      parts,
      edges: [...why].filter(([edge]) => parts.includes(edge.split(' → ')[0]!) && parts.includes(edge.split(' → ')[1]!)).map(([, file]) => file),
    }));
    expect(cycles).toEqual([]);
    // The walk saw the graph it judges.
    expect(graph.get('app.ts')?.has('bot')).toBe(true);
  });

  it('the interaction framework (src/interactions/) stands apart from the Discord client set-up (src/bot/)', () => {
    const reaching = sourceFiles('src/interactions').flatMap((file) =>
      runtimeImports(file, readFileSync(join(rootDir, file), 'utf8'))
        .filter((target) => target.startsWith('src/bot/'))
        .map((target) => `${file} → ${target}`),
    );
    expect(reaching).toEqual([]);
    expect(sourceFiles('src/interactions')).toContain('src/interactions/router.ts');
  });

  it("domain code takes services and a guild id: only the interaction layer (src/interactions/, a feature's *-command.ts) names HandlerContext", () => {
    const handlers = (file: string) => file.startsWith('src/interactions/') || file.endsWith('-command.ts');
    const naming = sourceFiles('src').filter((file) => !handlers(file) && /\bHandlerContext\b/.test(readFileSync(join(rootDir, file), 'utf8')));
    expect(naming).toEqual([]);
    expect(readFileSync(join(rootDir, 'src/interactions/context.ts'), 'utf8')).toMatch(/export class HandlerContext\b/);
  });
});

/** `commands/feed/list.ts` → `feed`; `commands/apikey.ts` and `commands/apikey/x.ts` → `apikey`. */
const commandOf = (file: string) => file.split('/')[1]!.replace(/\.ts$/, '');

describe('each command in its own place', () => {
  it("no command's files import another command's: what two share lives in src/", () => {
    const crossing: string[] = [];
    for (const file of sourceFiles('commands')) {
      for (const target of runtimeAndTypeImports(file, readFileSync(join(rootDir, file), 'utf8'))) {
        if (target.startsWith('commands/') && commandOf(target) !== commandOf(file)) crossing.push(`${file} → ${target}`);
      }
    }
    expect(crossing).toEqual([]);
  });
});

/** Every import of a module, types included: a command that needs another's types depends on it too. */
function runtimeAndTypeImports(file: string, text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm)].map((m) => posix.normalize(posix.join(posix.dirname(file), m[1]!)).replace(/\.js$/, '.ts'));
}
