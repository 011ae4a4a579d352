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
