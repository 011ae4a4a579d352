/**
 * feedbot's own undici, loaded at its first use (the first feed API request, an import file's
 * download, FEED_API_CA_FILE's agent) instead of at start-up: discord.js brings its own copy, and
 * this one is 110 more modules, about 25 ms of a Node 20 start before READY.
 */
import type * as undici from 'undici';

type Undici = typeof undici;

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici');
  return loading;
}
