/**
 * The demo's banner about the server's API key, without a bot: what `/apikey status` answers say,
 * which interactions may change the key, and what the banner says in each case. The page itself
 * following the key (after /feedbot forget, then /apikey set) is a story in playground.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { InteractionSnapshot } from '@feedbot/discord-emulator';
import { keyNote } from '../src/demo.js';
import { keyStateOf, mayChangeKey } from '../src/key-watch.js';

const snapshot = (fields: Partial<InteractionSnapshot>) => fields as InteractionSnapshot;

describe('the demo server key as the bot tells it', () => {
  it('reads /apikey status: a key’s status embed, the notice that there is none, or nothing', () => {
    expect(keyStateOf([{ title: 'API key', color: 0x5865f2, fields: [{ name: 'Key', value: '`fbk_…abcd`' }] }])).toBe('set');
    expect(keyStateOf([{ color: 0x5865f2, description: 'No API key is set for this server.' }])).toBe('missing');
    expect(keyStateOf([{ color: 0xed4245, description: 'Something went wrong' }])).toBe('unknown');
    expect(keyStateOf([])).toBe('unknown');
  });

  it('asks again after /apikey remove, the key forms, the remove answer and forget, not after other commands or settings', () => {
    expect(mayChangeKey(snapshot({ commandName: 'apikey' }), 'remove')).toBe(true);
    expect(mayChangeKey(snapshot({ customId: 'apikey:set' }), undefined)).toBe(true);
    expect(mayChangeKey(snapshot({ customId: 'feedbot:forget:yes:1400000000000000001:1900000000:1300000000000000001' }), undefined)).toBe(true);
    expect(mayChangeKey(snapshot({ customId: 'feedbot:set-unkey-answer:yes:1:2' }), undefined)).toBe(true);
    expect(mayChangeKey(snapshot({ commandName: 'apikey' }), 'status')).toBe(false);
    expect(mayChangeKey(snapshot({ commandName: 'feedbot' }), 'forget')).toBe(false);
    expect(mayChangeKey(snapshot({ customId: 'feed:delete:yes' }), undefined)).toBe(false);
    // The settings panel's other components, and the buttons that only open the key form or ask.
    expect(mayChangeKey(snapshot({ customId: 'feedbot:set-key-form' }), undefined)).toBe(true);
    for (const customId of ['feedbot:set-audit:1', 'feedbot:set-roles:1', 'feedbot:set-days:1', 'feedbot:set-key:1', 'feedbot:set-unkey:1', 'feedbot:set-audit-off:1'])
      expect(mayChangeKey(snapshot({ customId }), undefined), customId).toBe(false);
  });

  it('says what the key’s state is in the banner, and how to set one when it is gone', () => {
    const autoKey = { ok: true, answer: 'API key saved' };
    expect(keyNote(autoKey, 'set', false)).toMatchObject({ kind: 'info', text: { en: expect.stringContaining('Every command works right away') } });
    const gone = keyNote(autoKey, 'missing', true);
    expect(gone.kind).toBe('warning');
    expect(gone.text.en).toContain('no API key');
    expect(gone.text.en).toContain('Run /apikey set as the admin');
    expect(gone.text.es).toContain('Ejecuta /clave-api establecer como admin');
    expect(keyNote(autoKey, 'set', true)).toMatchObject({ kind: 'info', text: { en: expect.stringContaining('has an API key again') } });
    expect(keyNote({ ok: false, answer: 'no form' }, 'unknown', false)).toMatchObject({ kind: 'warning', text: { en: expect.stringContaining('could not set the API key itself (no form)') } });
  });
});
