/** The audit posts, one embed per event kind, in English and Spanish. */
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/events.js';
import { translator } from '../../src/i18n/index.js';
import { auditEmbed } from '../../src/audit/render.js';
import { auditStatusEmbed } from '../../commands/feedbot/render-audit-channel.js';

const at = new Date('2026-11-23T19:00:00.000Z');
const en = (e: AuditEvent) => auditEmbed(translator('en'), e, at);
const es = (e: AuditEvent) => auditEmbed(translator('es'), e, at);
const USER = '1400000000000000001';
const ROLE = '1500000000000000003';
const CHANNEL = '1300000000000000009';

describe('feed posts', () => {
  const created: AuditEvent = { kind: 'feedCreated', actor: { userId: USER }, feed: { id: 12, cuenta: 'nasa', canalId: CHANNEL, tipos: ['post', 'reel'] } };

  it('created: who, which feed, where it forwards, what', () => {
    expect(en(created)).toEqual({
      title: 'Feed #12 created',
      color: 0x57f287,
      fields: [
        { name: 'By', value: `<@${USER}>`, inline: true },
        { name: 'Feed', value: '`#12` @nasa', inline: true },
        { name: 'Forwards to', value: `<#${CHANNEL}>`, inline: true },
        { name: 'Content', value: 'Posts + Reels', inline: true },
      ],
      timestamp: '2026-11-23T19:00:00.000Z',
    });
    expect(es(created).title).toBe('Feed #12 creado');
    expect(es(created).fields!.map((f) => f.name)).toEqual(['Por', 'Feed', 'Reenvía a', 'Contenido']);
  });

  it('deleted by a feed manager names the role that allowed it', () => {
    const deleted: AuditEvent = { kind: 'feedDeleted', actor: { userId: USER, viaRoleId: ROLE }, feed: { id: 12, cuenta: 'nasa', canalId: CHANNEL } };
    expect(en(deleted)).toMatchObject({
      title: 'Feed #12 deleted',
      color: 0xed4245,
      fields: [
        { name: 'By', value: `<@${USER}>, allowed by the feed-manager role <@&${ROLE}>`, inline: false },
        { name: 'Feed', value: '`#12` @nasa' },
        { name: 'Forwarded to', value: `<#${CHANNEL}>` },
      ],
    });
    expect(es(deleted).fields![0]!.value).toBe(`<@${USER}>, con permiso gracias al rol de gestor de feeds <@&${ROLE}>`);
  });

  it('an account name cannot ping or break the layout', () => {
    const e: AuditEvent = { kind: 'feedCreated', actor: { userId: USER }, feed: { id: 3, cuenta: '@everyone_*x*' } };
    expect(en(e).fields![1]!.value).toBe('`#3` @@\u200beveryone\\_\\*x\\*');
  });
});

describe('key posts: masked, and who', () => {
  it('set, replaced, removed', () => {
    expect(en({ kind: 'keySet', actor: { userId: USER }, masked: '••••QX81', replaced: false })).toEqual({
      title: 'API key set',
      color: 0x5865f2,
      fields: [
        { name: 'Key', value: '`••••QX81`', inline: true },
        { name: 'By', value: `<@${USER}>`, inline: true },
      ],
      timestamp: '2026-11-23T19:00:00.000Z',
    });
    expect(en({ kind: 'keySet', actor: { userId: USER }, masked: '••••QX81', replaced: true })).toMatchObject({
      title: 'API key replaced',
      description: 'The previous key is no longer used.',
    });
    expect(es({ kind: 'keySet', actor: { userId: USER }, masked: '••••QX81', replaced: true }).title).toBe('Clave de API sustituida');
    const removed = es({ kind: 'keyRemoved', actor: { userId: USER }, masked: '••••QX81' });
    expect(removed).toMatchObject({
      title: 'Clave de API eliminada',
      description: 'Los comandos de feeds no funcionan hasta que un admin ejecute `/clave-api establecer`.',
      fields: [{ name: 'Clave', value: '`••••QX81`' }, { name: 'Por', value: `<@${USER}>` }],
    });
    // A removed key that could not be read shows no key field.
    expect(en({ kind: 'keyRemoved', actor: { userId: USER }, masked: undefined }).fields).toEqual([{ name: 'By', value: `<@${USER}>`, inline: true }]);
  });

  it('stopped working tells an admin to run /apikey set', () => {
    expect(en({ kind: 'keyStoppedWorking', masked: '••••3Kq2' })).toMatchObject({
      title: 'The API key stopped working',
      color: 0xed4245,
      description:
        'The feed API refused the key `••••3Kq2` (401): it was probably regenerated or revoked in the dashboard. Feed commands fail until an admin runs `/apikey set` with the new key.',
    });
    expect(es({ kind: 'keyStoppedWorking', masked: '••••3Kq2' }).description).toMatch(/^La API de feeds rechazó la clave `••••3Kq2` \(401\).*`\/clave-api establecer`/);
  });
});

describe('channel deleted', () => {
  const event: AuditEvent = { kind: 'channelDeleted', channelId: CHANNEL, channelName: 'space', feeds: [{ id: 12, cuenta: 'nasa' }, { id: 14 }] };

  it('lists the feeds with the command that deletes each, and the one that deletes them all', () => {
    expect(en(event)).toMatchObject({
      title: 'Channel #space was deleted',
      color: 0xfee75c,
      description: [
        '2 feeds forwarded into it and now forward nowhere. Delete each one with the command beside it:',
        '`#12` @nasa — `/feed delete id:12`',
        '`#14` — `/feed delete id:14`',
        '',
        'Or delete every feed with a warning at once: `/feed delete problems:True`',
      ].join('\n'),
    });
    expect(es(event).description).toContain('`#12` @nasa — `/feed eliminar id:12`');
    // What a Spanish client shows for a true boolean option, so the command reads as it is typed there.
    expect(es(event).description).toContain('`/feed eliminar problemas:Verdadero`');
    expect(es(event).title).toBe('Se eliminó el canal #space');
  });

  it('counts what does not fit, and names the channel by id when its name is unknown', () => {
    const many: AuditEvent = { kind: 'channelDeleted', channelId: CHANNEL, feeds: Array.from({ length: 30 }, (_, i) => ({ id: i + 1 })) };
    const embed = en(many);
    expect(embed.title).toBe(`Channel ${CHANNEL} was deleted`);
    expect(embed.description).toContain('`/feed delete id:25`');
    expect(embed.description).not.toContain('id:26`');
    expect(embed.description).toContain('…and 5 more.');
  });
});

describe('status', () => {
  it('shows an unreported failure with its reason and reference', () => {
    const failure = { at: Date.parse('2026-11-23T18:00:00.000Z'), reason: 'unknown_channel', channelId: CHANNEL, reported: false, ref: 'ABCD2345' };
    expect(auditStatusEmbed(translator('en'), CHANNEL, failure)).toEqual({
      title: 'Audit channel',
      color: 0xfee75c,
      description: `Audit messages are posted in <#${CHANNEL}>.`,
      fields: [
        {
          name: 'Last failed post',
          value: `<t:${Date.parse('2026-11-23T18:00:00.000Z') / 1000}:R> in <#${CHANNEL}>: the channel no longer exists. Choose another one with \`/feedbot audit-channel set\`.\nReference: \`ABCD2345\``,
        },
      ],
    });
    const other = auditStatusEmbed(translator('es'), CHANNEL, { ...failure, reason: 'discord_500', ref: undefined });
    expect(other.fields![0]!.value).toMatch(/en <#\d+>: Discord no aceptó la publicación \(`discord_500`\)\.$/);
    expect(auditStatusEmbed(translator('es'), CHANNEL, { ...failure, reason: 'missing_permissions' }).fields![0]!.value).toContain('el bot ya no puede publicar ahí');
  });
});
