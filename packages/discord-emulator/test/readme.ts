/** Keeps the README's examples honest: each is the `// #region readme` of a test file. */
import { readFileSync } from 'node:fs';

/** Whether ../README.md contains the test file's readme region as a ```ts block, verbatim. */
export function quotedByReadme(testFileUrl: string): boolean {
  const source = readFileSync(new URL(testFileUrl), 'utf8');
  const example = /\/\/ #region readme\n([\s\S]*?)\/\/ #endregion readme/.exec(source)?.[1];
  if (example === undefined) throw new Error(`${testFileUrl} has no readme region`);
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  return readme.includes('```ts\n' + example + '```');
}
