/**
 * Suggestions for `/feed list estado` (answered in commands/feed/autocomplete.ts): the states the
 * API documents (`activo`, `pausado`) and those the guild's cached feed list shows, labelled in
 * the user's language. Free text is still
 * accepted (the spec does not list every state); this never sends a request.
 */
import { FEED_STATES } from '@feedbot/feed-api-contract';
import type { Translator } from '../i18n/index.js';
import { stateLabel } from '../render/labels.js';
import { Limits } from '../render/style.js';
import { truncate } from '../render/text.js';

/** A state the list filter can carry in its buttons (see parseStateFilter). */
const FILTERABLE = /^[a-z0-9_.-]{1,20}$/;

export function stateChoices(t: Translator, seen: readonly string[], query: string): { name: string; value: string }[] {
  const states = [...new Set([...FEED_STATES, ...seen.map((s) => s.toLowerCase())])].filter((s) => FILTERABLE.test(s));
  const q = query.trim().toLowerCase();
  return states
    .map((value) => {
      // A known state reads "Paused (pausado)"; an unknown one, as the API wrote it.
      const label = stateLabel(t, value);
      const name = label.startsWith('`') ? value : t('health.state.choice', { label, value });
      return { name: truncate(name, Limits.choiceName), value };
    })
    .filter((choice) => !q || choice.name.toLowerCase().includes(q))
    .slice(0, Limits.choices);
}
