/**
 * src/render/text.ts: truncation by grapheme. For start-up's sake, the grapheme segmenter (ICU
 * break-iterator data, about 7 ms of a start on this machine) is built by the first text that
 * needs cutting, not when the module loads, and only once.
 */
import { afterEach, expect, test, vi } from 'vitest';

// Each test imports the module afresh.
afterEach(() => {
  vi.resetModules();
});

test('truncate cuts between graphemes and adds an ellipsis; short text is returned as it is', async () => {
  const { truncate } = await import('../../src/render/text.js');
  expect(truncate('short', 10)).toBe('short');
  expect(truncate('abcdefghij', 5)).toBe('abcd…');
  // A family emoji is one grapheme of 11 UTF-16 units: never split.
  const family = '👨‍👩‍👧‍👦';
  expect(truncate(`ab${family}cd`, 12)).toBe('ab…');
  expect(truncate(`ab${family}cd`, 14)).toBe(`ab${family}…`);
  expect(truncate('word    ', 6)).toBe('word…');
});

test('the segmenter is built at the first cut, not at import, and once', async () => {
  const Original = Intl.Segmenter;
  let built = 0;
  class Counting extends Original {
    constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
      super(...args);
      built++;
    }
  }
  (Intl as { Segmenter: typeof Intl.Segmenter }).Segmenter = Counting;
  try {
    const { truncate } = await import('../../src/render/text.js');
    expect(built).toBe(0);
    expect(truncate('short', 10)).toBe('short');
    expect(built).toBe(0);
    expect(truncate('abcdefghij', 5)).toBe('abcd…');
    expect(truncate('klmnopqrst', 5)).toBe('klmn…');
    expect(built).toBe(1);
  } finally {
    (Intl as { Segmenter: typeof Intl.Segmenter }).Segmenter = Original;
  }
});
