/**
 * Labels for values the API sends (states, content kinds), shared by every view: a value we know
 * is translated, an unknown one is shown as the API sent it.
 */
import type { MessageKey, Translator } from '../i18n/index.js';
import { apiCode, apiText, plainLine } from './markdown.js';

// Maps without a prototype: a value from the API such as `constructor` must read as unknown.
const known = (entries: Record<string, MessageKey>): Readonly<Record<string, MessageKey | undefined>> => Object.assign(Object.create(null) as Record<string, MessageKey>, entries);
const KNOWN_STATES = known({ activo: 'state.activo', pausado: 'state.pausado' });
const KNOWN_KINDS = known({ post: 'kind.post', reel: 'kind.reel', story: 'kind.story' });
const KNOWN_KIND_SINGULAR = known({ post: 'kind.one.post', reel: 'kind.one.reel', story: 'kind.one.story' });

/** A state we know gets a translated label; an unknown one is shown as the API sent it. */
export function stateLabel(t: Translator, estado: string): string {
  const key = KNOWN_STATES[estado];
  return key ? t(key) : apiCode(estado);
}

/** `plain`: for a label Discord renders no markdown in (an autocomplete choice), where escapes would show. */
export function kindLabel(t: Translator, kind: string, opts: { plain?: boolean } = {}): string {
  const key = KNOWN_KINDS[kind];
  if (key) return t(key);
  return opts.plain ? plainLine(kind, 40) : apiText(kind, { max: 40 });
}

/** One post's kind ("Reel"), for a post's own title. */
export function singleKindLabel(t: Translator, kind: string): string {
  const key = KNOWN_KIND_SINGULAR[kind];
  return key ? t(key) : apiText(kind, { max: 40 });
}

export function kindsLabel(t: Translator, kinds: readonly string[], opts: { plain?: boolean } = {}): string {
  return kinds.length ? kinds.map((k) => kindLabel(t, k, opts)).join(t('kinds.separator')) : '—';
}
