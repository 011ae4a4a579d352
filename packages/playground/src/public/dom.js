/* global document */
/**
 * Building DOM nodes: elements with attributes and children, and the few inline SVG icons the
 * page draws itself (so no icon font or emoji font is needed). Text is only ever set as text.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Attributes that are false, null, undefined or '' are left out; `true` sets an empty one. */
export function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === true) node.setAttribute(k, '');
    else if (v !== false && v !== undefined && v !== null && v !== '') node.setAttribute(k, String(v));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

export const $ = (id) => document.getElementById(id);

const ICON_PATHS = {
  // Discord's megaphone for announcement channels.
  announcement: ['M3 10v4a1 1 0 0 0 1 1h2l5 4V5L6 9H4a1 1 0 0 0-1 1Zm10-3.5v11a6 6 0 0 0 0-11ZM13 3v2.1a8 8 0 0 1 0 13.8V21a10 10 0 0 0 0-18Z'],
};

/** One of the icons above, `size` pixels square, coloured by the text around it. */
export function icon(name, size, className) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  if (size) {
    svg.setAttribute('width', String(size));
    svg.setAttribute('height', String(size));
  }
  if (className) svg.setAttribute('class', className);
  for (const d of ICON_PATHS[name]) {
    const path = document.createElementNS(SVG_NS, 'path');
    path.setAttribute('fill', 'currentColor');
    path.setAttribute('fill-rule', 'evenodd');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}
