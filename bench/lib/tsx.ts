/**
 * File URLs of tsx's ESM entry points, resolved from this repository's node_modules, for child
 * processes (`--import`) and worker threads (which do not inherit the parent's loader).
 * Resolved by hand from tsx's package.json because `import.meta.resolve` is not available
 * everywhere this code runs (vitest's module runner).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

type ExportTarget = string | { import?: string | { default?: string } };

export function tsxUrl(subpath: '.' | './esm/api'): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, ExportTarget> };
  const target = pkg.exports[subpath];
  const file = typeof target === 'string' ? target : typeof target?.import === 'string' ? target.import : target?.import?.default;
  if (!file) throw new Error(`tsx exports no ESM entry for ${subpath}`);
  return pathToFileURL(join(dirname(manifest), file)).href;
}
