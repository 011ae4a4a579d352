/**
 * The log holds conversations started on this page and the bot's own channel posts, each drawn
 * as one or more top-level elements that carry `data-order` (the snowflake of the interaction
 * or message that started them): placing by it keeps the log in the order things happened.
 */
import { $ } from './dom.js';

const later = (a, b) => BigInt(a) > BigInt(b);

/** Replaces the elements matching `selector` with `fresh`, or inserts `fresh` where `order` belongs. */
export function placeInLog(selector, order, fresh) {
  const log = $('log');
  const old = [...log.querySelectorAll(selector)];
  for (const node of fresh) node.dataset.order = order;
  if (old.length) {
    old[0].before(...fresh);
    for (const node of old) node.remove();
  } else {
    const next = [...log.children].find((node) => node.dataset.order && later(node.dataset.order, order));
    if (next) next.before(...fresh);
    else log.append(...fresh);
  }
  $('welcome').hidden = log.children.length > 0;
}
