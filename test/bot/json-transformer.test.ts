/**
 * The bot's jsonTransformer gives discord.js exactly what its default (toSnakeCase) would, for any
 * JSON value and for the shapes feedbot sends, and skips the rebuild only where nothing changes.
 */
import { EmbedBuilder, Options } from 'discord.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiShapedJson } from '../../src/bot/json-transformer.js';

const toSnakeCase = Options.createDefault().jsonTransformer as (value: unknown) => unknown;

/** Keys like the API's, camelCase ones, odd ones (digits, leading or doubled underscores, emoji). */
const key = fc.oneof(
  fc.constantFrom('custom_id', 'min_values', 'default_values', 'type', 'emoji', 'customId', 'minValues', 'a1', '_x', 'x__y', 'ID', 'url'),
  fc.string({ maxLength: 8 }),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.string(), fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
})).value;

function outcome(run: () => unknown): { value: unknown } | { threw: string } {
  try {
    return { value: run() };
  } catch (error) {
    return { threw: String(error) };
  }
}

describe('jsonTransformer', () => {
  it('equals discord.js toSnakeCase on any JSON value', () => {
    fc.assert(
      fc.property(json, (value) => {
        // Both throw alike too (discord.js cannot resolve an emoji string with a lone surrogate).
        expect(outcome(() => apiShapedJson(value))).toEqual(outcome(() => toSnakeCase(value)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('passes an API-shaped component through untouched, and converts what needs it', () => {
    const select = { type: 1, components: [{ type: 3, custom_id: 'feed:manage:1', min_values: 1, options: [{ label: '#1 @nasa', value: '1' }] }] };
    expect(apiShapedJson(select)).toBe(select);
    const camel = { type: 2, customId: 'x', emoji: '👍' };
    expect(apiShapedJson(camel)).toEqual(toSnakeCase(camel));
    expect(apiShapedJson(camel)).toMatchObject({ custom_id: 'x' });
    expect(apiShapedJson([new EmbedBuilder().setTitle('t')])).toEqual([{ title: 't' }]);
    expect(apiShapedJson({ timestamp: new Date(0) })).toEqual(toSnakeCase({ timestamp: new Date(0) }));
  });
});
