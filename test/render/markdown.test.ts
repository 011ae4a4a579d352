/**
 * The escaper every outside string goes through before Discord renders it: whatever the input,
 * nothing in it stays live markdown, and what a reader sees is the input itself.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { apiCode, apiText, escapeDiscordMarkdown } from '../../src/render/markdown.js';
import { liveMarkdown, unescapeDiscord } from './live-markdown.js';

const markdownish = fc.string({ unit: fc.constantFrom(...'\\`*_~|[]()<>#-+:!. 1a\n'.split('')), maxLength: 40 });

describe('escapeDiscordMarkdown', () => {
  it('leaves no markdown rule live, and reads back as the input', () => {
    fc.assert(
      fc.property(fc.oneof(markdownish, fc.string()), (text) => {
        const escaped = escapeDiscordMarkdown(text);
        expect(liveMarkdown(escaped)).toEqual([]);
        expect(unescapeDiscord(escaped)).toBe(text);
      }),
    );
  });

  it.each([
    ['[free nitro](https://evil.example)', '\\[free nitro\\](https\\://evil.example)'],
    ['# heading', '\\# heading'],
    ['-# subtext', '\\-\\# subtext'],
    ['- item', '\\- item'],
    ['1. item', '1\\. item'],
    ['> quote', '\\> quote'],
    ['||spoiler||', '\\|\\|spoiler\\|\\|'],
    ['<https://evil.example>', '\\<https\\://evil.example\\>'],
    [':nitro:', '\\:nitro\\:'],
    ['x_y.z', 'x\\_y.z'],
  ])('escapes %j', (input, output) => {
    expect(escapeDiscordMarkdown(input)).toBe(output);
  });
});

describe('apiText and apiCode', () => {
  it('put outside text on one line, defused, cut before escaping', () => {
    expect(apiText('a\n# b @everyone')).toBe('a \\# b @\u200beveryone');
    expect(apiText('*'.repeat(50), { max: 10 })).toBe(`${'\\*'.repeat(9)}…`);
    expect(apiText('line one\n> two', { multiline: true })).toBe('line one\n\\> two');
  });

  it('code never closes early and is never empty', () => {
    expect(apiCode('a`b')).toBe("`a'b`");
    expect(apiCode('')).toBe('` `');
  });
});
