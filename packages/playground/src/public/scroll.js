/* global ResizeObserver */
/**
 * Like Discord, the view follows new messages while it is at the bottom. Components render and
 * images load after insertion, so follow size changes rather than insertions.
 */
import { $ } from './dom.js';

let pinned = true;
let autoTop = 0;

export function followBottom() {
  const scroller = $('scroller');
  scroller.addEventListener('scroll', () => {
    // Only the reader scrolling up unpins; growth after our own scroll does not.
    if (scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80) pinned = true;
    else if (scroller.scrollTop < autoTop - 2) pinned = false;
  });
  new ResizeObserver(() => {
    if (pinned) toBottom();
  }).observe($('log'));
}

export function toBottom() {
  pinned = true;
  const scroller = $('scroller');
  scroller.scrollTop = scroller.scrollHeight;
  autoTop = scroller.scrollTop;
}

/**
 * Brings `node`, the new message answering the visitor's own press, pick or form, into view, as
 * the answer to a typed command is: at the end of the log the view stays with it as it grows;
 * inside an earlier conversation, its top is shown.
 */
export function follow(node) {
  if (!node.nextElementSibling) return toBottom();
  pinned = false;
  node.scrollIntoView({ block: 'start' });
}
