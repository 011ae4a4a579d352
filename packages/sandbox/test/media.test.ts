/**
 * Media and post pages come from the sandbox itself (nothing outside the machine): a real PNG and
 * an SVG per post, an HTML page behind postUrl, 404 JSON for anything else.
 */
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPng } from '../src/media.js';
import { ALL_SCOPES, CHANNEL, expectErrorBody, expectRateHeaders, startTestSandbox, type TestSandbox } from './helpers.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.dispose();
});

function pngChunks(png: Buffer): { type: string; data: Buffer }[] {
  const chunks = [];
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset);
    chunks.push({ type: png.toString('ascii', offset + 4, offset + 8), data: png.subarray(offset + 8, offset + 8 + length) });
    offset += 12 + length;
  }
  return chunks;
}

describe('generated media', () => {
  it('renderPng produces a decodable 320×320 RGB PNG that differs per post and per kind', () => {
    const png = renderPng('AbCdEfGhIjK', 'reel');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const chunks = pngChunks(png);
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const ihdr = chunks[0]!.data;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([320, 320, 8, 2]);
    expect(inflateSync(chunks[1]!.data).length).toBe(320 * (320 * 3 + 1));
    expect(renderPng('AbCdEfGhIjK', 'story').equals(png)).toBe(false);
    expect(renderPng('ZZZZZZZZZZZ', 'reel').equals(png)).toBe(false);
  });

  it('serves PNG, SVG and the post page without a key; escapes the caption', async () => {
    const { guildId, key } = await sb.admin.createScratchServer(ALL_SCOPES);
    const feed = await sb.admin.createFeed(guildId, { cuenta: 'nasa', canalId: CHANNEL, tipos: ['post'] });
    await sb.admin.addPost(guildId, feed.id, { caption: '<script>alert("x")</script> & más' });
    const post = ((await sb.call('GET', `/feeds/${feed.id}/posts`, { key })).json as { posts: { id: string; mediaUrl: string; postUrl: string }[] }).posts[0]!;
    expect(post.mediaUrl).toBe(`${sb.url}/media/${post.id}.png`);

    const png = await sb.call('GET', `/media/${post.id}.png`);
    expect(png.status).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expectRateHeaders(png);
    const svg = await sb.call('GET', `/media/${post.id}.svg`);
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(svg.text).toContain('@nasa');

    const page = await sb.call('GET', new URL(post.postUrl).pathname);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('&#60;script&#62;');
  });

  it.each(['/media/AAAAAAAAAAA.png', '/media/short.png', '/media/AAAAAAAAAAA.gif', '/p/AAAAAAAAAAA', '/p/%3Cx%3E'])('%s is a JSON 404', async (path) => {
    const res = await sb.call('GET', path);
    expect(res.status).toBe(404);
    expectErrorBody(res, 'not_found');
    expectRateHeaders(res);
  });
});
