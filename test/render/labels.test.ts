/**
 * Labels of values the API sends: a known one translated, an unknown one shown as sent — also
 * one named like a property every object inherits.
 */
import { describe, expect, it } from 'vitest';
import { translator } from '../../src/i18n/index.js';
import { kindLabel, singleKindLabel, stateLabel } from '../../src/render/labels.js';

const t = translator('es');

describe('labels of API values', () => {
  it('translates the known ones', () => {
    expect(stateLabel(t, 'pausado')).toBe(t('state.pausado'));
    expect(kindLabel(t, 'reel')).toBe(t('kind.reel'));
    expect(singleKindLabel(t, 'story')).toBe(t('kind.one.story'));
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('shows %j as the API sent it, never a prototype member', (value) => {
    for (const label of [stateLabel(t, value), kindLabel(t, value), kindLabel(t, value, { plain: true }), singleKindLabel(t, value)]) {
      expect(typeof label).toBe('string');
      expect(label.replace(/[\\`]/g, '')).toContain(value.replace(/_/g, ''));
    }
  });
});
