/**
 * Every relative link and image of the README files and of docs/ points at a file that exists
 * (anchors are not checked), and every image says what it shows (alt text).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentationFiles, isExternal, linkedPath, links, read, shortName } from './markdown.js';

describe('documentation links', () => {
  for (const file of documentationFiles()) {
    it(`${shortName(file)}: relative links and images exist, images have alt text`, () => {
      const broken: string[] = [];
      for (const link of links(read(file))) {
        if (link.kind === 'image' && !link.alt?.trim()) broken.push(`line ${link.line}: image ${link.target} has no alt text`);
        if (isExternal(link.target)) continue;
        const path = linkedPath(file, link.target);
        if (path && !existsSync(path)) broken.push(`line ${link.line}: ${link.target} does not exist`);
      }
      expect(broken).toEqual([]);
    });
  }
});
