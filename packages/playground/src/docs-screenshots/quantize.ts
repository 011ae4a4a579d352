/**
 * Fewer colours for smaller pictures: a screenshot of Discord's flat UI has a few thousand
 * colours, nearly all of them anti-aliasing shades of text. Median cut splits the colours into at
 * most 256 groups, each time the group whose colours spread widest (weighted by the square root
 * of its pixels: a post's gradient gets enough groups not to band, a small avatar still keeps one
 * of its own); each group is drawn with its most frequent colour, so backgrounds and text stay
 * exact. A picture with 256 colours or fewer is unchanged.
 */
import { decodePng, encodeIndexedPng, type RgbImage } from './png.js';

interface Colour {
  key: number;
  rgb: [number, number, number];
  count: number;
}

type Box = Colour[];

const channelRange = (box: Box, c: number): number => {
  let min = 255;
  let max = 0;
  for (const colour of box) {
    min = Math.min(min, colour.rgb[c]!);
    max = Math.max(max, colour.rgb[c]!);
  }
  return max - min;
};

const widestChannel = (box: Box): { channel: number; range: number } =>
  [0, 1, 2].map((channel) => ({ channel, range: channelRange(box, channel) })).reduce((a, b) => (b.range > a.range ? b : a));

/** Splits at the count-weighted median of the widest channel; both halves keep at least one colour. */
function split(box: Box): [Box, Box] {
  const { channel } = widestChannel(box);
  const sorted = [...box].sort((a, b) => a.rgb[channel]! - b.rgb[channel]! || a.key - b.key);
  const total = sorted.reduce((sum, c) => sum + c.count, 0);
  let seen = 0;
  let at = 1;
  for (; at < sorted.length - 1; at++) {
    seen += sorted[at - 1]!.count;
    if (seen * 2 >= total) break;
  }
  return [sorted.slice(0, at), sorted.slice(at)];
}

function medianCut(colours: Colour[], size: number): Box[] {
  const boxes: Box[] = [colours];
  while (boxes.length < size) {
    let pick = -1;
    let widest = 0;
    boxes.forEach((box, i) => {
      const spread = box.length > 1 ? widestChannel(box).range * Math.sqrt(box.reduce((sum, c) => sum + c.count, 0)) : 0;
      if (spread > widest) [pick, widest] = [i, spread];
    });
    if (pick < 0) break;
    boxes.splice(pick, 1, ...split(boxes[pick]!));
  }
  return boxes;
}

function histogram(image: RgbImage): Colour[] {
  const counts = new Map<number, number>();
  const { rgb } = image;
  for (let i = 0; i < rgb.length; i += 3) {
    const key = (rgb[i]! << 16) | (rgb[i + 1]! << 8) | rgb[i + 2]!;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([key, count]) => ({ key, rgb: [(key >> 16) & 0xff, (key >> 8) & 0xff, key & 0xff], count }));
}

/** At most `size` colours for `image`, and each pixel's index among them. */
export function quantize(image: RgbImage, size = 256): { palette: Uint8Array; indices: Uint8Array } {
  const colours = histogram(image);
  const chosen = (colours.length <= size ? colours.map((c) => [c]) : medianCut(colours, size)).map(
    (box) => box.reduce((best, c) => (c.count > best.count ? c : best)).rgb,
  );
  const palette = Uint8Array.from(chosen.flat());
  const slot = new Map<number, number>();
  for (const colour of colours) {
    let best = 0;
    let bestDistance = Infinity;
    chosen.forEach(([r, g, b], i) => {
      const d = (r - colour.rgb[0]) ** 2 + (g - colour.rgb[1]) ** 2 + (b - colour.rgb[2]) ** 2;
      if (d < bestDistance) [best, bestDistance] = [i, d];
    });
    slot.set(colour.key, best);
  }
  const indices = new Uint8Array(image.width * image.height);
  for (let p = 0, i = 0; p < indices.length; p++, i += 3) indices[p] = slot.get((image.rgb[i]! << 16) | (image.rgb[i + 1]! << 8) | image.rgb[i + 2]!)!;
  return { palette, indices };
}

/** Chromium's PNG of a picture as a palette PNG, usually a third of the size. */
export function smallerPng(png: Buffer): Buffer {
  const image = decodePng(png);
  const { palette, indices } = quantize(image);
  return encodeIndexedPng(image.width, image.height, palette, indices);
}
