/**
 * The API key's rule is defined once, in the contract: the /apikey form's text input, the key
 * store's schema and the client's input check all follow it, so a key the store accepts is one the
 * form lets through, and the client lets through no key the store would refuse.
 */
import { ComponentType, type APIModalInteractionResponseCallbackData } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { API_KEY_LENGTH, ApiKeySchema } from '@feedbot/feed-api-contract';
import { keyModal } from '../../src/api-key/render.js';
import { translator } from '../../src/i18n/index.js';
import { AuthSchema } from '../../src/api/validation.js';
import { StoredKeySchema } from '../../src/keys/schema.js';

const stored = (apiKey: string) => ({ apiKey, setBy: '1', setAt: new Date(0).toISOString(), scopes: ['feeds:read'] });

describe('the API key rule', () => {
  it("the /apikey form's text input has the contract's lengths", () => {
    for (const lang of ['en', 'es'] as const) {
      const modal = keyModal(translator(lang), { modal: 'm', input: 'key' }).toJSON() as APIModalInteractionResponseCallbackData;
      const label = modal.components[0] as { type: number; component?: { type: number; min_length?: number; max_length?: number } };
      expect(label.type).toBe(ComponentType.Label);
      expect(label.component).toMatchObject({ type: ComponentType.TextInput, min_length: API_KEY_LENGTH.min, max_length: API_KEY_LENGTH.max });
    }
  });

  const samples: Array<[string, string]> = [
    ['empty', ''],
    ['one below the minimum', 'k'.repeat(API_KEY_LENGTH.min - 1)],
    ['the minimum', 'k'.repeat(API_KEY_LENGTH.min)],
    ["a sandbox key's shape", `fbk_${'A1b2'.repeat(10)}`],
    ['the maximum', 'k'.repeat(API_KEY_LENGTH.max)],
    ['one above the maximum', 'k'.repeat(API_KEY_LENGTH.max + 1)],
    ['far above the old client maximum', 'k'.repeat(4096)],
    ['a space inside', 'fbk_abcd efgh'],
    ['a header injection', 'fbk_abcdefgh\r\nX-Evil: 1'],
    ['non-ASCII', 'fbk_clé_secrète'],
  ];

  it.for(samples)("the key store and the client accept %s exactly when the contract does", ([, key]) => {
    const contract = ApiKeySchema.safeParse(key).success;
    expect(StoredKeySchema.safeParse(stored(key)).success, 'key store').toBe(contract);
    expect(AuthSchema.safeParse({ apiKey: key, guildId: '1' }).success, 'client').toBe(contract);
  });

  it('the contract accepts the boundaries and refuses what lies outside them', () => {
    expect(samples.filter(([, key]) => ApiKeySchema.safeParse(key).success).map(([name]) => name)).toEqual(['the minimum', "a sandbox key's shape", 'the maximum']);
  });
});
