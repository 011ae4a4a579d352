/**
 * The pieces of `npm run docs:screenshots` that need no browser: the PNG reader and palette
 * writer, the colour reduction, and the clock the bot process gets through NODE_OPTIONS.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { CLOCK_ACK, botPreload, type ClockState } from '../../packages/playground/src/docs-screenshots/clock.js';
import { decodePng } from '../../packages/playground/src/docs-screenshots/png.js';
import { quantize, smallerPng } from '../../packages/playground/src/docs-screenshots/quantize.js';

/** An RGB PNG as Chromium writes one, rows alternating the Sub and Paeth filters. */
function rgbPng(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): { png: Buffer; rgb: Uint8Array } {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgb.set(pixel(x, y), (y * width + x) * 3);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const filter = y % 2 === 0 ? 1 : 4;
    rows[y * (width * 3 + 1)] = filter;
    for (let i = 0; i < width * 3; i++) {
      const at = y * width * 3 + i;
      const a = i >= 3 ? rgb[at - 3]! : 0;
      const b = y > 0 ? rgb[at - width * 3]! : 0;
      const c = i >= 3 && y > 0 ? rgb[at - width * 3 - 3]! : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      rows[y * (width * 3 + 1) + 1 + i] = (rgb[at]! - (filter === 1 ? a : paeth)) & 0xff;
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, data, Buffer.alloc(4)]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return { png: Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]), rgb };
}

describe('pictures in 256 colours', () => {
  it('reads every row filter back to the same pixels', () => {
    const { png, rgb } = rgbPng(37, 9, (x, y) => [(x * 7) & 0xff, (y * 29) & 0xff, (x * y) & 0xff]);
    expect(decodePng(png)).toEqual({ width: 37, height: 9, rgb });
  });

  it('keeps a picture of 256 colours or fewer exactly', () => {
    const { png, rgb } = rgbPng(16, 16, (x, y) => [x * 16, y * 16, 40]);
    const small = decodePng(png);
    const { palette, indices } = quantize(small);
    const back = Array.from(indices, (i) => [...palette.subarray(i * 3, i * 3 + 3)]).flat();
    expect(Uint8Array.from(back)).toEqual(rgb);
  });

  it('gives a many-coloured picture at most 256 colours, keeping its most frequent one, the same bytes every time', () => {
    // A dark background (most pixels), a gradient, and one small yellow square.
    const pixel = (x: number, y: number): [number, number, number] =>
      x < 8 && y < 8 ? [250, 190, 40] : y < 60 ? [49, 51, 56] : [x & 0xff, (x + y) & 0xff, (y * 3) & 0xff];
    const { png } = rgbPng(300, 120, pixel);
    const once = smallerPng(png);
    expect(smallerPng(png).equals(once)).toBe(true);
    const { palette, indices } = quantize(decodePng(png));
    expect(palette.length / 3).toBeLessThanOrEqual(256);
    const colourAt = (x: number, y: number) => [...palette.subarray(indices[y * 300 + x]! * 3, indices[y * 300 + x]! * 3 + 3)];
    expect(colourAt(100, 10)).toEqual([49, 51, 56]);
    expect(colourAt(3, 3)).toEqual([250, 190, 40]);
    expect(decodePng(png).width).toBe(300);
  });
});

describe('the clock the bot process gets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feedbot-docs-clock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts at the state it reads, moves on SIGUSR2 and says so, and leaves old dates instances of Date', async () => {
    const file = join(dir, 'clock.json');
    const at = (virtualAt: number, rate: number): ClockState => ({ virtualAt, realAt: Date.now(), rate });
    writeFileSync(file, JSON.stringify(at(Date.UTC(2025, 5, 12, 9, 0, 0), 0)));
    const script = `
      const dates = () => [Date.now(), new Date().toISOString(), new Date(0) instanceof Date, typeof Date()].join(' ');
      console.log('first ' + dates());
      process.stdin.once('data', () => console.log('second ' + dates()));`;
    const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, NODE_OPTIONS: botPreload(file) }, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    /** The first line (so far or to come) starting with `prefix`. */
    const waitFor = async (prefix: string): Promise<string> => {
      for (let i = 0; i < 200; i++) {
        const line = lines.find((l) => l.startsWith(prefix));
        if (line) return line;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no line starting with ${prefix}; output: ${lines.join(' | ')}; stderr: ${stderr}`);
    };
    const first = await waitFor('first ');
    expect(first).toBe(`first ${Date.UTC(2025, 5, 12, 9, 0, 0)} 2025-06-12T09:00:00.000Z true string`);
    writeFileSync(file, JSON.stringify(at(Date.UTC(2025, 5, 12, 9, 2, 0), 0)));
    child.kill('SIGUSR2');
    const ack = JSON.parse(await waitFor('{')) as { msg: string; virtualAt: number };
    expect(ack).toEqual({ msg: CLOCK_ACK, virtualAt: Date.UTC(2025, 5, 12, 9, 2, 0) });
    child.stdin.end('go\n');
    expect(await waitFor('second ')).toBe(`second ${Date.UTC(2025, 5, 12, 9, 2, 0)} 2025-06-12T09:02:00.000Z true string`);
  });
});
