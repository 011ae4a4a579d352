/**
 * Every relative link and image of the README files and of docs/ points at a file that exists
 * inside the repository (anchors are not checked), and every image says what it shows (alt
 * text). A link that leaves the repository (`../shared/…`) may resolve on one machine and is
 * broken in every clone.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, documentationFiles, isExternal, linkedPath, links, read, shortName } from './markdown.js';

const outsideRepository = (path: string): boolean => {
  const inside = relative(ROOT, path);
  return inside.startsWith('..') || isAbsolute(inside);
};

describe('documentation links', () => {
  for (const file of documentationFiles()) {
    it(`${shortName(file)}: relative links and images exist in the repository, images have alt text`, () => {
      const broken: string[] = [];
      for (const link of links(read(file))) {
        if (link.kind === 'image' && !link.alt?.trim()) broken.push(`line ${link.line}: image ${link.target} has no alt text`);
        if (isExternal(link.target)) continue;
        const path = linkedPath(file, link.target);
        if (path && outsideRepository(path)) broken.push(`line ${link.line}: ${link.target} leaves the repository`);
        else if (path && !existsSync(path)) broken.push(`line ${link.line}: ${link.target} does not exist`);
      }
      expect(broken).toEqual([]);
    });
  }
});
