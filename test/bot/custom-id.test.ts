/** The custom_id codecs: what every button writes, it reads back; nothing else gets through. */
import { describe, expect, it } from 'vitest';
import { customId, int, oneOf, optional, snowflake, withFormerFormat, type CustomIdCodec } from '../../src/interactions/custom-id.js';
import { deleteConfirmId } from '../../commands/feed/delete.js';
import { listPageId } from '../../commands/feed/list.js';
import { postsPageId } from '../../commands/feed/posts.js';
import { keyModalId } from '../../commands/apikey.js';

const USER = '1400000000000000001';
const CHANNEL = '1300000000000000002';
/** The /feed delete interaction that asked. */
const ASKED = '1500000000000000003';

/** Replaces part `index` (0 = the first after the prefix) of a valid id. */
function withPart<S>(codec: CustomIdCodec<S>, valid: S, index: number, text: string): string {
  const parts = codec.encode(valid).split(':');
  parts[index + 2] = text;
  return parts.join(':');
}

describe('parts', () => {
  it('int reads digits only, as a safe integer within bounds', () => {
    const page = int({ min: 1, max: 1000 });
    expect(page.read('1')).toEqual({ value: 1 });
    expect(page.read('1000')).toEqual({ value: 1000 });
    for (const bad of ['', '0', '1001', '-1', '+1', '1e0', '1.0', '01', ' 1', '0x1', 'abc', 'NaN', 'Infinity']) {
      expect({ bad, read: page.read(bad) }).toEqual({ bad, read: undefined });
    }
    expect(int().read('9007199254740991')).toEqual({ value: Number.MAX_SAFE_INTEGER });
    expect(int().read('9007199254740993')).toBeUndefined();
    expect(int().read('0')).toEqual({ value: 0 });
  });

  it('snowflake reads 17–20 digits that fit 64 bits', () => {
    expect(snowflake.read('10000000000000000')).toEqual({ value: '10000000000000000' });
    expect(snowflake.read('18446744073709551615')).toEqual({ value: '18446744073709551615' });
    for (const bad of ['1000000000000000', '100000000000000000000', '18446744073709551616', '01300000000000000002', '13000000000000000x2', '']) {
      expect({ bad, read: snowflake.read(bad) }).toEqual({ bad, read: undefined });
    }
  });

  it('oneOf reads only its values; optional reads `-` as absent', () => {
    const kind = optional(oneOf(['post', 'reel']));
    expect(kind.read('reel')).toEqual({ value: 'reel' });
    expect(kind.read('-')).toEqual({ value: undefined });
    expect(kind.write(undefined)).toBe('-');
    for (const bad of ['', 'Reel', 'story', 'constructor', '--']) expect(kind.read(bad)).toBeUndefined();
  });
});

describe('codec', () => {
  const codec = customId('demo:thing', { n: int(), who: snowflake });

  it('refuses other prefixes and a missing or extra part', () => {
    expect(codec.decode(`demo:thing:5:${USER}`)).toEqual({ n: 5, who: USER });
    for (const bad of ['demo:thing', 'demo:thing:5', `demo:thing:5:${USER}:x`, `demo:thing:5:${USER}:`, `demo:other:5:${USER}`, `demo:thingy:5:${USER}`, `x:demo:thing:5:${USER}`]) {
      expect({ bad, decoded: codec.decode(bad) }).toEqual({ bad, decoded: undefined });
    }
  });

  it('with a former format: writes the current one, reads both, the current one first', () => {
    const current = customId('demo:thing', { n: int(), who: snowflake, tag: optional(oneOf(['a', 'b'])) });
    const former = customId('demo:thing', { n: int(), who: snowflake });
    const both = withFormerFormat(current, former, (old) => ({ ...old, tag: undefined }));
    expect(both.prefix).toBe('demo:thing');
    expect(both.encode({ n: 5, who: USER, tag: 'a' })).toBe(`demo:thing:5:${USER}:a`);
    expect(both.decode(`demo:thing:5:${USER}:a`)).toEqual({ n: 5, who: USER, tag: 'a' });
    expect(both.decode(`demo:thing:5:${USER}`)).toEqual({ n: 5, who: USER, tag: undefined });
    for (const bad of [`demo:thing:5`, `demo:thing:5:${USER}:c`, `demo:thing:x:${USER}`, `demo:thing:5:${USER}:a:b`]) {
      expect({ bad, decoded: both.decode(bad) }).toEqual({ bad, decoded: undefined });
    }
    expect(() => withFormerFormat(current, customId('demo:other', {}), () => ({ n: 0, who: USER, tag: undefined }))).toThrow(/same prefix/);
  });

  it('refuses to write an id it could not read back', () => {
    expect(() => codec.encode({ n: -1, who: USER })).toThrow(/n cannot be encoded/);
    expect(() => codec.encode({ n: 1.5, who: USER })).toThrow();
    expect(() => codec.encode({ n: 1, who: 'not:a:snowflake' })).toThrow();
    expect(() => customId('demo:long', { s: oneOf(['x'.repeat(95)]) }).encode({ s: 'x'.repeat(95) })).toThrow(/longer than 100/);
  });
});

describe.each([
  {
    name: 'feed list page',
    codec: listPageId as CustomIdCodec<unknown>,
    valid: { page: 3, channelId: CHANNEL, userId: USER },
    id: `feed:list:3:${CHANNEL}:${USER}`,
    numeric: 0,
  },
  {
    name: 'feed list page without a channel',
    codec: listPageId as CustomIdCodec<unknown>,
    valid: { page: 1, channelId: undefined, userId: USER },
    id: `feed:list:1:-:${USER}`,
    numeric: 0,
  },
  {
    name: 'feed posts page',
    codec: postsPageId as CustomIdCodec<unknown>,
    valid: { id: 3, limite: 50, tipo: 'reel', page: 2, userId: USER },
    id: `feed:posts:3:50:reel:2:${USER}`,
    numeric: 3,
  },
  {
    name: 'feed delete confirmation',
    codec: deleteConfirmId as CustomIdCodec<unknown>,
    valid: { answer: 'yes', id: 1, userId: USER, expires: 1_790_000_000, asked: ASKED },
    id: `feed:delete:yes:1:${USER}:1790000000:${ASKED}`,
    numeric: 3,
    // Without its last part, the id is one posted before `asked` was added: still read.
    withoutLastPart: { answer: 'yes', id: 1, userId: USER, expires: 1_790_000_000, asked: undefined },
  },
] as { name: string; codec: CustomIdCodec<unknown>; valid: unknown; id: string; numeric: number; withoutLastPart?: unknown }[])('$name', ({ codec, valid, id, numeric, withoutLastPart }) => {
  it('keeps the format buttons already sent use, and round-trips', () => {
    expect(codec.encode(valid)).toBe(id);
    expect(codec.decode(id)).toEqual(valid);
  });

  it.each(['1e0', 'abc', '', '-1', '01', '9007199254740993'])('refuses %j as a number', (text) => {
    expect(codec.decode(withPart(codec, valid, numeric, text))).toBeUndefined();
  });

  it('refuses a missing or an extra part, and a user that is not a snowflake', () => {
    expect(codec.decode(id.split(':').slice(0, -1).join(':'))).toEqual(withoutLastPart);
    expect(codec.decode(`${id}:1`)).toBeUndefined();
    expect(codec.decode(id.replace(USER, 'someone'))).toBeUndefined();
  });
});

describe('other parts of the feed ids', () => {
  it('posts: limite within 1–50, tipo from the known kinds', () => {
    const valid = { id: 3, limite: 10, tipo: undefined, page: 1, userId: USER };
    expect(postsPageId.decode(withPart(postsPageId, valid, 1, '51'))).toBeUndefined();
    expect(postsPageId.decode(withPart(postsPageId, valid, 2, 'video'))).toBeUndefined();
  });

  it('delete: the answer is yes or no', () => {
    const valid = { answer: 'no' as const, id: 1, userId: USER, expires: 1_790_000_000, asked: ASKED };
    expect(deleteConfirmId.decode(deleteConfirmId.encode(valid))).toEqual(valid);
    expect(deleteConfirmId.decode(withPart(deleteConfirmId, valid, 0, 'maybe'))).toBeUndefined();
  });

  it('delete: the asking interaction is a snowflake; confirmations posted before it was added are read strictly too', () => {
    const valid = { answer: 'yes' as const, id: 1, userId: USER, expires: 1_790_000_000, asked: ASKED };
    expect(deleteConfirmId.decode(withPart(deleteConfirmId, valid, 4, '123'))).toBeUndefined();
    expect(deleteConfirmId.decode(`feed:delete:no:4:${USER}:1790000000`)).toEqual({ answer: 'no', id: 4, userId: USER, expires: 1_790_000_000, asked: undefined });
    for (const bad of [`feed:delete:yes:1:${USER}:never`, `feed:delete:yes:01:${USER}:1790000000`, `feed:delete:yes:1:${USER}`, `feed:delete:maybe:1:${USER}:1790000000`]) {
      expect({ bad, decoded: deleteConfirmId.decode(bad) }).toEqual({ bad, decoded: undefined });
    }
    // The longest id it can write still fits Discord's 100 characters.
    expect(deleteConfirmId.encode({ ...valid, id: Number.MAX_SAFE_INTEGER, userId: '18446744073709551615', asked: '18446744073709551615' }).length).toBeLessThanOrEqual(100);
  });

  it('the API key modal is exactly apikey:set', () => {
    expect(keyModalId.encode({})).toBe('apikey:set');
    expect(keyModalId.decode('apikey:set')).toEqual({});
    expect(keyModalId.decode('apikey:set:x')).toBeUndefined();
    expect(keyModalId.decode('apikey:sets')).toBeUndefined();
  });
});
