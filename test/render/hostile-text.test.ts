/**
 * Every answer that shows text we did not write (the API's account names, states, kinds, plan,
 * captions and messages; an import file's names; Discord names), rendered with hostile strings:
 * no markdown in them stays live. An account named `[free nitro](https://evil.example)` must read
 * as that text, not as a clickable masked link; the same for headings, lists, quotes, emphasis,
 * spoilers, code, autolinks and emoji.
 */
import { describe, expect, it } from 'vitest';
import type { APIEmbed } from 'discord.js';
import type { FeedListItem, Post, Stats } from '@feedbot/feed-api-contract';
import type { AuditEvent } from '../../src/audit/events.js';
import { translator, type Lang } from '../../src/i18n/index.js';
import { quotedApiText } from '../../src/render/api-text.js';
import { auditEmbed } from '../../src/audit/render.js';
import { bulkDeleteConfirmation, bulkDeleteReportEmbed, deleteConfirmation, deletedEmbed } from '../../commands/feed/render-delete.js';
import { createdFeedEmbed, feedListView } from '../../commands/feed/render-feeds.js';
import { postsPage } from '../../commands/feed/render-posts.js';
import { statsEmbed } from '../../commands/stats/render.js';
import { importPreview, importReportEmbed } from '../../src/transfer/render.js';
import { liveMarkdown } from './live-markdown.js';

/** Between the two markers, every markdown rule Discord knows; a line break to start lines with them. */
const HOSTILE = 'ZQA[free nitro](https://evil.example) # h -# s\n- l\n> q\n1. n ||sp|| ~~x~~ *e* **b** _u_ __v__ `c` <https://x.example> :nitro: <@&1> \\ ZQB';
const CHANNEL = '1300000000000000009';
const expires = new Date('2026-11-21T12:01:00.000Z');
const ids = { confirm: 'feed:x:yes', cancel: 'feed:x:no' };

const feed: FeedListItem = { id: 11, cuenta: HOSTILE, canal: CHANNEL, estado: HOSTILE, tipos: ['post', HOSTILE], filtros: 0, ultimoPost: null };
const summary = { id: 11, cuenta: HOSTILE, canalId: CHANNEL, tipos: ['post', HOSTILE] };
const row = { row: 2, cuenta: HOSTILE, canalId: CHANNEL, tipos: ['post' as const], filtros: 0 };
const stats: Stats = { servidor: HOSTILE, plan: HOSTILE, feedsActivos: 1, feedsPausados: 0, postsHoy: 0, postsEstaSemana: 0, cuentaMasActiva: HOSTILE, ultimaActividad: null };
const post: Post = { id: HOSTILE, tipo: HOSTILE, caption: HOSTILE, mediaUrl: 'https://media.example/a.jpg', postUrl: 'https://social.example/p/p', publicadoEn: '2026-11-21T10:00:00.000Z', publicadoDiscord: '2026-11-21T10:00:05.000Z' };

function answers(lang: Lang): [string, APIEmbed[]][] {
  const t = translator(lang);
  const audit = (event: AuditEvent) => auditEmbed(t, event, expires);
  return [
    ['delete confirmation', deleteConfirmation(t, feed, expires, ids).embeds],
    ['delete not confirmed', [deletedEmbed(t, 11, { ok: false, mensaje: HOSTILE })]],
    ['bulk delete confirmation', bulkDeleteConfirmation(t, { channelId: CHANNEL, feeds: [{ feed: summary }], expires }, ids).embeds],
    ['bulk delete report', [bulkDeleteReportEmbed(t, { deleted: [summary], gone: [summary], failed: [{ feed: summary, reason: quotedApiText(t, HOSTILE) }], notAttempted: [summary] })]],
    ['audit: created', [audit({ kind: 'feedCreated', actor: { userId: '1400000000000000001' }, feed: summary })]],
    ['audit: deleted', [audit({ kind: 'feedDeleted', actor: { userId: '1400000000000000001' }, feed: summary })]],
    ['audit: channel deleted', [audit({ kind: 'channelDeleted', channelId: CHANNEL, channelName: HOSTILE, feeds: [summary] })]],
    ['feed created', [createdFeedEmbed(t, { id: 11, cuenta: HOSTILE, canalId: CHANNEL, estado: HOSTILE, creado: '2026-11-21T10:00:00.000Z' }, ['post', HOSTILE])]],
    ['feed list', [feedListView(t, { feeds: [feed, { ...feed, id: 12, canal: HOSTILE }], total: 2, plan: HOSTILE }, { page: 1 }).embed]],
    ['feed list of a channel', [feedListView(t, { feeds: [feed], total: 1, plan: HOSTILE }, { page: 1, channelId: CHANNEL, channelName: HOSTILE, filters: { cuenta: HOSTILE } }).embed]],
    ['stats', [statsEmbed(t, stats)]],
    ['posts', postsPage(t, [post], { feedId: 11, page: 1, tipo: undefined, idFor: (p) => `feed:posts:${p}` }).embeds],
    ['import preview', importPreview(t, { fileName: HOSTILE, plan: { create: [row], present: [{ feed: row, existingId: 3 }], invalid: [{ row: 4, label: HOSTILE, key: 'transfer.invalid.cuenta', vars: {} }], notes: { withFilters: 0, notActive: 0 } }, expires, ids: { confirm: 'a', cancel: 'b' } }).embeds],
    ['import report', [importReportEmbed(t, { created: [{ feed: row, id: 5 }], present: 0, refused: [{ feed: row, reason: quotedApiText(t, HOSTILE) }], notAttempted: [row] })]],
  ];
}

function texts(embed: APIEmbed): [string, string][] {
  return [
    ['title', embed.title],
    ['description', embed.description],
    ['footer', embed.footer?.text],
    ['author', embed.author?.name],
    ...(embed.fields ?? []).flatMap((f, i): [string, string][] => [
      [`field ${i} name`, f.name],
      [`field ${i} value`, f.value],
    ]),
  ].filter((entry): entry is [string, string] => entry[1] !== undefined);
}

/**
 * The hostile parts of `text`: from each ZQA to its ZQB (or where a cut ended it). Inside inline
 * code markdown is not rendered, so there only a backtick (which would close the code) is live.
 */
function liveInHostileParts(text: string): string[] {
  const live: string[] = [];
  let from = text.indexOf('ZQA');
  expect(from, `no hostile text shown in ${JSON.stringify(text)}`).toBeGreaterThanOrEqual(0);
  while (from >= 0) {
    // A cut ends the part with its ellipsis (a backslash before it escapes it, harmlessly).
    const ends = [text.indexOf('ZQB', from), text.indexOf('…', from) + 1].filter((i) => i > 0);
    const to = ends.length ? Math.min(...ends) : text.length;
    const part = text.slice(from, to);
    if (text[from - 1] === '`') {
      if (part.includes('`')) live.push(`backtick inside code: ${part}`);
    } else {
      live.push(...liveMarkdown(part).map((l) => `${l} in ${JSON.stringify(part)}`));
    }
    from = text.indexOf('ZQA', to);
  }
  return live;
}

describe.each(['en', 'es'] as const)('hostile text in every answer (%s)', (lang) => {
  it.each(answers(lang))('%s: nothing the API sent is live markdown', (_name, embeds) => {
    const live = embeds.flatMap((embed) => texts(embed).filter(([, text]) => text.includes('ZQA')).flatMap(([where, text]) => liveInHostileParts(text).map((l) => `${where}: ${l}`)));
    expect(embeds.some((embed) => texts(embed).some(([, text]) => text.includes('ZQA')))).toBe(true);
    expect(live).toEqual([]);
  });
});
