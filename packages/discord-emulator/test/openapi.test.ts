/**
 * Interaction responses and channel messages against Discord's OpenAPI document: the subsets the
 * emulator keeps are the document's, valid bodies pass, and what the document refuses is reported
 * as Discord would.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkCallbackIssues, SUBSET_FILE } from '../src/validation/openapi/callback-spec.js';
import { checkMessageCreateIssues, MESSAGE_CREATE_SUBSET_FILE } from '../src/validation/openapi/message-spec.js';
import { extractCallbackSubset, extractRequestSubset, MESSAGE_CREATE_PATH, renderSubset } from '../src/validation/openapi/subset.js';
import { CHANNEL_ID, TOKEN, startTestEmulator } from './helpers.js';

// The whole document lives beside the repository (../shared/spec); DISCORD_OPENAPI points elsewhere.
const DOCUMENT = process.env.DISCORD_OPENAPI ?? fileURLToPath(new URL('../../../../shared/spec/discord-openapi.json', import.meta.url));

describe('the subset of the document', () => {
  it.skipIf(!existsSync(DOCUMENT))('is what write-subset.ts extracts from the whole document', () => {
    const subset = extractCallbackSubset(JSON.parse(readFileSync(DOCUMENT, 'utf8')));
    expect(renderSubset(subset)).toBe(readFileSync(SUBSET_FILE, 'utf8'));
    expect(subset.source).toMatchObject({ operationId: 'create_interaction_response', version: '10' });
  });

  it.skipIf(!existsSync(DOCUMENT))('for channel messages is what write-subset.ts extracts too', () => {
    const subset = extractRequestSubset(JSON.parse(readFileSync(DOCUMENT, 'utf8')), MESSAGE_CREATE_PATH);
    expect(renderSubset(subset)).toBe(readFileSync(MESSAGE_CREATE_SUBSET_FILE, 'utf8'));
    expect(subset.source).toMatchObject({ operationId: 'create_message', version: '10', path: MESSAGE_CREATE_PATH });
  });
});

const codes = (body: unknown) => checkCallbackIssues(body).map((i) => [i.path.join('.'), i.code]);

describe('responses', () => {
  it('valid ones of every kind pass', () => {
    const valid: unknown[] = [
      { type: 4, data: { content: 'hi', flags: 64, embeds: [{ title: 't', color: 0xff0000, timestamp: new Date().toISOString(), fields: [{ name: 'a', value: 'b', inline: true }] }], allowed_mentions: { parse: [] } } },
      { type: 4, data: { components: [{ type: 1, components: [{ type: 2, style: 5, label: 'Site', url: 'https://example.com' }, { type: 3, custom_id: 's', options: [{ label: 'A', value: 'a' }] }] }] } },
      { type: 4, data: { flags: 32768, components: [{ type: 17, components: [{ type: 10, content: '# Title' }, { type: 14, divider: true, spacing: 1 }, { type: 9, components: [{ type: 10, content: 'x' }], accessory: { type: 2, style: 1, custom_id: 'b', label: 'B' } }] }] } },
      { type: 4, data: { content: 'file', attachments: [{ id: '0', filename: 'a.txt' }] } },
      { type: 5 },
      { type: 5, data: { flags: 64 } },
      { type: 6 },
      { type: 7, data: { content: 'updated', components: [] } },
      { type: 8, data: { choices: [{ name: 'one', value: 'one' }] } },
      { type: 8, data: { choices: [{ name: 'one', value: 1 }, { name: 'half', value: 0.5 }] } },
      { type: 9, data: { custom_id: 'm', title: 'Title', components: [{ type: 18, label: 'Name', component: { type: 4, custom_id: 'name', style: 1, required: true } }] } },
      { type: 9, data: { custom_id: 'm', title: 'Title', components: [{ type: 1, components: [{ type: 4, custom_id: 'old', style: 2, label: 'Old style' }] }] } },
    ];
    for (const body of valid) expect(codes(body), JSON.stringify(body)).toEqual([]);
  });

  it('what the document refuses, as Discord says it, naming the schema', () => {
    expect(codes({ type: 4, data: { content: 'x', tts: 'yes', flags: 1.5 } })).toEqual([
      ['data.tts', 'BOOLEAN_TYPE_CONVERT'],
      ['data.flags', 'NUMBER_TYPE_COERCE'],
    ]);
    expect(checkCallbackIssues({ type: 4, data: { allowed_mentions: { parse: ['users', 'nobody'] } } })).toEqual([
      { path: ['data', 'allowed_mentions', 'parse', 1], code: 'BASE_TYPE_CHOICES', message: 'Value must be one of (users, roles, everyone).', schema: 'AllowedMentionTypes', choices: ['users', 'roles', 'everyone'] },
    ]);
    expect(checkCallbackIssues({ type: 4, data: { components: [{ type: 99 }] } })).toMatchObject([
      { path: ['data', 'components', 0, 'type'], code: 'UNION_TYPE_CHOICES', message: expect.stringMatching(/^Value of field "type" must be one of \(1, .*17.*\)\.$/) },
    ]);
    expect(codes({ type: 4, data: { components: [{ type: 1, components: [{ type: 2, style: 9, custom_id: 'a', emoji: 5 }] }] } })).toEqual([
      ['data.components.0.components.0.style', 'BASE_TYPE_CHOICES'],
      ['data.components.0.components.0.emoji', 'MODEL_TYPE_CONVERT'],
    ]);
    expect(codes({ type: 4, data: { components: [{ type: 1, components: [{ type: 3, custom_id: 's', options: [{ label: 'A' }] }] }] } })).toEqual([
      ['data.components.0.components.0.options.0.value', 'BASE_TYPE_REQUIRED'],
    ]);
    expect(codes({ type: 7, data: { attachments: [{ id: 'first' }] } })).toEqual([['data.attachments.0.id', 'NUMBER_TYPE_COERCE']]);
    expect(codes({ type: 8, data: { choices: [{ name: '', value: 'x'.repeat(6001) }] } })).toEqual([
      ['data.choices.0.name', 'BASE_TYPE_MIN_LENGTH'],
      ['data.choices.0.value', 'BASE_TYPE_MAX_LENGTH'],
    ]);
    expect(codes({ type: 9, data: { custom_id: 'm', components: [] } })).toEqual([
      ['data.title', 'BASE_TYPE_REQUIRED'],
      ['data.components', 'BASE_TYPE_MIN_LENGTH'],
    ]);
    expect(codes({ type: 4, data: { embeds: [{ url: 'not a url' }] } })).toEqual([['data.embeds.0.url', 'URL_TYPE_INVALID_URL']]);
  });

  it('snowflakes may be integers, as Discord’s API takes them', () => {
    expect(codes({ type: 4, data: { content: 'x', allowed_mentions: { users: [123456789012345, '123456789012345678'] } } })).toEqual([]);
  });
});

const messageCodes = (body: unknown) => checkMessageCreateIssues(body).map((i) => [i.path.join('.'), i.code]);

describe('channel messages (POST /channels/{id}/messages)', () => {
  it('valid ones pass, what the document refuses is named', () => {
    const embed = { title: 'Feed created', color: 0x57f287, timestamp: new Date().toISOString(), fields: [{ name: 'Cuenta', value: 'nasa', inline: true }], footer: { text: 'feedbot' } };
    expect(messageCodes({ embeds: [embed], allowed_mentions: { parse: [] } })).toEqual([]);
    expect(messageCodes({ content: 'file', attachments: [{ id: '0', filename: 'a.txt' }] })).toEqual([]);
    expect(messageCodes({ content: 'x', tts: 'yes', embeds: [{ url: 'not a url' }] })).toEqual([
      ['tts', 'BOOLEAN_TYPE_CONVERT'],
      ['embeds.0.url', 'URL_TYPE_INVALID_URL'],
    ]);
  });

  it('the REST route refuses them with 50035, after its own rules', async () => {
    const emu = await startTestEmulator();
    try {
      const res = await fetch(`${emu.restUrl}/channels/${CHANNEL_ID}/messages`, {
        method: 'POST',
        headers: { authorization: `Bot ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ embeds: [{ title: 'x', footer: { text: 'f', icon_url: 5 } }] }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        code: 50035,
        message: 'Invalid Form Body',
        errors: { embeds: { 0: { footer: { icon_url: { _errors: [{ code: expect.any(String), message: expect.stringContaining('(Discord OpenAPI: ') }] } } } } },
      });
      expect(emu.messages()).toEqual([]);
    } finally {
      await emu.close();
    }
  });
});
