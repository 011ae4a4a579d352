/**
 * The images and post pages the sandbox serves itself, so `mediaUrl` and `postUrl` never point
 * outside the machine. Images are drawn from the post code (colours) and kind (shape): PNG for
 * anything that renders embeds, SVG with the caption for people looking at it in a browser.
 */
import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { ContentKind } from '@feedbot/feed-api-contract';
import type { PostRecord } from './records.js';

const SIZE = 320;

function palette(code: string): { a: [number, number, number]; b: [number, number, number] } {
  const h = createHash('sha256').update(code).digest();
  const channel = (i: number): number => 40 + ((h[i] ?? 0) % 180);
  return { a: [channel(0), channel(1), channel(2)], b: [channel(3), channel(4), channel(5)] };
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
}

function insideShape(tipo: ContentKind, x: number, y: number): boolean {
  const c = SIZE / 2;
  if (tipo === 'reel') {
    // A "play" triangle.
    const left = c - 50;
    const dx = x - left;
    return dx >= 0 && dx <= 100 && Math.abs(y - c) <= 60 - dx * 0.6;
  }
  if (tipo === 'story') {
    const d = Math.hypot(x - c, y - c);
    return d >= 95 && d <= 115;
  }
  return Math.abs(x - c) <= 60 && Math.abs(y - c) <= 60 && (Math.abs(x - c) >= 50 || Math.abs(y - c) >= 50);
}

/** A 320×320 RGB PNG: a diagonal gradient with a white mark for the kind. */
export function renderPng(code: string, tipo: ContentKind): Buffer {
  const { a, b } = palette(code);
  const row = SIZE * 3 + 1;
  const raw = Buffer.alloc(row * SIZE);
  for (let y = 0; y < SIZE; y++) {
    raw[y * row] = 0; // filter: none
    for (let x = 0; x < SIZE; x++) {
      const t = (x + y) / (2 * SIZE - 2);
      const offset = y * row + 1 + x * 3;
      const white = insideShape(tipo, x, y);
      for (let ch = 0; ch < 3; ch++) {
        raw[offset + ch] = white ? 255 : Math.round((a[ch] ?? 0) * (1 - t) + (b[ch] ?? 0) * t);
      }
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const rgb = (c: [number, number, number]): string => `rgb(${c.join(',')})`;

export function renderSvg(post: PostRecord): string {
  const { a, b } = palette(post.code);
  const label = `${post.tipo} · @${post.cuenta}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${rgb(a)}"/><stop offset="1" stop-color="${rgb(b)}"/></linearGradient></defs>
<rect width="${SIZE}" height="${SIZE}" fill="url(#g)"/>
<text x="16" y="${SIZE - 20}" font-family="sans-serif" font-size="18" fill="#fff">${escapeXml(label)}</text>
</svg>
`;
}

/** The "post on the source platform" page behind `postUrl`. */
export function renderPostPage(post: PostRecord, mediaUrl: string): string {
  return `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>@${escapeXml(post.cuenta)} · ${escapeXml(post.tipo)}</title></head>
<body style="font-family:sans-serif;max-width:40rem;margin:2rem auto">
<p><strong>@${escapeXml(post.cuenta)}</strong> · ${escapeXml(post.tipo)}</p>
<img src="${escapeXml(mediaUrl)}" width="320" height="320" alt="">
<p>${escapeXml(post.caption)}</p>
<p><small>Publicado ${escapeXml(post.publicadoEn)} · reenviado ${escapeXml(post.publicadoDiscord)}</small></p>
<p><small>feedbot sandbox: contenido generado, nada de esto existe fuera de esta máquina.</small></p>
</body></html>
`;
}
