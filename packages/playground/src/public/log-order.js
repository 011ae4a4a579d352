/**
 * The log holds conversations started on this page and the bot's own channel posts, each drawn
 * as one or more top-level elements that carry `data-order` (the snowflake of the interaction
 * or message that started them): placing by it keeps the log in the order things happened.
 */
import { $ } from './dom.js';

const later = (a, b) => BigInt(a) > BigInt(b);

/** What a node was drawn from (drawnFrom), as a string. */
const sources = new WeakMap();

/** Marks `node` as drawn from `source` (a string saying everything it shows); returns it. */
export function drawnFrom(node, source) {
  sources.set(node, source);
  return node;
}

/**
 * Replaces the elements matching `selector` with `fresh`, or inserts `fresh` where `order` belongs.
 * An element already drawn from the same source as its replacement stays: a new one would be
 * empty until its parts render and its images load, which shrinks the log under the reader and
 * moves the view, and it would drop what the visitor is doing there (a focused button, a select's
 * picks, as Discord's client keeps them).
 */
export function placeInLog(selector, order, fresh) {
  const log = $('log');
  const old = [...log.querySelectorAll(selector)];
  const kept = new Set();
  const nodes = fresh.map((node) => {
    const source = sources.get(node);
    const same = source !== undefined && old.find((o) => !kept.has(o) && sources.get(o) === source);
    if (!same) return node;
    kept.add(same);
    return same;
  });
  for (const node of nodes) node.dataset.order = order;
  if (old.length) {
    // New elements go right after the one before them (the first before the old first); kept ones stay put.
    let previous = null;
    for (const node of nodes) {
      if (!kept.has(node)) {
        if (previous) previous.after(node);
        else old[0].before(node);
      }
      previous = node;
    }
    for (const node of old) if (!kept.has(node)) node.remove();
  } else {
    const next = [...log.children].find((node) => node.dataset.order && later(node.dataset.order, order));
    if (next) next.before(...nodes);
    else log.append(...nodes);
  }
  showWelcome();
}

/**
 * The channel's welcome (with commands to try) shows until the visitor has a conversation there:
 * posts in the channel (the service's forwarded posts, the bot's audit posts) do not hide it.
 */
export function showWelcome() {
  $('welcome').hidden = $('log').querySelector(':scope > [data-group]') !== null;
}
