/* global document */
/**
 * Discord's message markdown → DOM nodes built from the renderer's elements: bold, italics,
 * underline, strike, spoilers, inline and block code, masked links, quotes, headers, and the
 * mentions and timestamps (`<#id>`, `<@id>`, `<@&id>`, `<t:unix:style>`). Text is only ever set
 * with textContent, never parsed as HTML.
 */
import { discordTimestamp, fullDate } from './dates.js';
import { el } from './dom.js';
import { tr } from './i18n.js';

const INLINE = [
  { name: 'escape', re: /\\([^A-Za-z0-9\s])/y },
  { name: 'codeblock', re: /```(?:[a-z0-9_+-]*\n)?([\s\S]*?)```/y },
  { name: 'code', re: /``([^`]+?)``|`([^`]+?)`/y },
  { name: 'time', re: /<t:(-?\d{1,13})(?::([tTdDfFR]))?>/y },
  { name: 'channel', re: /<#(\d{15,21})>/y },
  { name: 'role', re: /<@&(\d{15,21})>/y },
  { name: 'user', re: /<@!?(\d{15,21})>/y },
  { name: 'command', re: /<\/([\w-]{1,32}(?: [\w-]{1,32}){0,2}):(\d{15,21})>/y },
  { name: 'link', re: /\[([^\]\n]+)\]\(<?(https?:\/\/[^\s)>]+)>?\)/y },
  { name: 'url', re: /<?(https?:\/\/[^\s<>]+[^\s<>.,:;"')\]])>?/y },
  { name: 'bold', re: /\*\*([\s\S]+?)\*\*(?!\*)/y },
  { name: 'underline', re: /__([\s\S]+?)__(?!_)/y },
  { name: 'italic', re: /\*(?!\s)([\s\S]+?)\*(?!\*)|_([\s\S]+?)_(?![A-Za-z0-9_])/y },
  { name: 'strike', re: /~~([\s\S]+?)~~/y },
  { name: 'spoiler', re: /\|\|([\s\S]+?)\|\|/y },
];

/** Characters where an inline rule may start; everything else is plain text. */
const SPECIAL = /[\\`<[h*_~|]/g;

function textWithBreaks(text) {
  const parts = text.split('\n');
  const out = [];
  parts.forEach((part, i) => {
    if (i > 0) out.push(el('br'));
    if (part) out.push(document.createTextNode(part));
  });
  return out;
}

/**
 * ctx: { lang, inEmbed, channelName(id), userName(id), roleName(id), link(url) → url }.
 */
function inline(text, ctx) {
  const out = [];
  let plain = '';
  let i = 0;
  const flush = () => {
    if (plain) out.push(...textWithBreaks(plain));
    plain = '';
  };
  while (i < text.length) {
    SPECIAL.lastIndex = i;
    const next = SPECIAL.exec(text);
    if (!next) {
      plain += text.slice(i);
      break;
    }
    plain += text.slice(i, next.index);
    i = next.index;
    let matched = false;
    // Underscores inside a word (max_member) are not emphasis.
    const midWord = text[i] === '_' && i > 0 && /\w/.test(text[i - 1]);
    for (const rule of INLINE) {
      if (midWord && (rule.name === 'italic' || rule.name === 'underline')) continue;
      rule.re.lastIndex = i;
      const m = rule.re.exec(text);
      if (!m) continue;
      const node = build(rule.name, m, ctx);
      if (node === undefined) continue;
      flush();
      out.push(...(Array.isArray(node) ? node : [node]));
      i += m[0].length;
      matched = true;
      break;
    }
    if (!matched) {
      plain += text[i];
      i += 1;
    }
  }
  flush();
  return out;
}

function build(name, m, ctx) {
  switch (name) {
    case 'escape':
      return document.createTextNode(m[1]);
    case 'codeblock':
      return el('discord-code', { multiline: true, embed: ctx.inEmbed }, [m[1].replace(/\n$/, '')]);
    case 'code':
      return el('discord-code', { embed: ctx.inEmbed }, [m[1] ?? m[2]]);
    case 'time': {
      const unix = Number(m[1]);
      const style = m[2] ?? 'f';
      const text = discordTimestamp(unix, style, ctx.lang);
      // Out of JavaScript's date range: no rule matches, so the markup stays text (as Discord shows it).
      if (text === null) return undefined;
      return el('discord-time', { 'data-unix': unix, 'data-style': style, title: fullDate(unix, ctx.lang) }, [text]);
    }
    case 'channel':
      return el('discord-mention', { type: 'channel' }, [ctx.channelName(m[1]) ?? tr(ctx.lang, 'mention.unknownChannel')]);
    case 'role':
      return el('discord-mention', { type: 'role' }, [ctx.roleName(m[1]) ?? tr(ctx.lang, 'mention.unknownRole')]);
    case 'user':
      return el('discord-mention', { type: 'user' }, [ctx.userName(m[1]) ?? tr(ctx.lang, 'mention.unknownUser')]);
    case 'command':
      return el('discord-mention', { type: 'slash' }, [m[1]]);
    case 'link':
      return el('discord-link', { href: ctx.link(m[2]), target: '_blank', rel: 'noopener noreferrer' }, inline(m[1], ctx));
    case 'url':
      return el('discord-link', { href: ctx.link(m[1]), target: '_blank', rel: 'noopener noreferrer' }, [m[1]]);
    case 'bold':
      return el('discord-bold', {}, inline(m[1], ctx));
    case 'underline':
      return el('discord-underlined', {}, inline(m[1], ctx));
    case 'italic':
      return el('discord-italic', {}, inline(m[1] ?? m[2], ctx));
    case 'strike':
      return el('s', {}, inline(m[1], ctx));
    case 'spoiler':
      return el('discord-spoiler', {}, inline(m[1], ctx));
    default:
      return undefined;
  }
}

/** Block structure first (quotes, headers), then inline markup inside each block. */
export function renderMarkdown(text, ctx) {
  const fragment = document.createDocumentFragment();
  const lines = String(text ?? '').split('\n');
  let buffer = [];
  const flushText = () => {
    if (buffer.length) fragment.append(...inline(buffer.join('\n'), ctx));
    buffer = [];
  };
  for (let idx = 0; idx < lines.length; idx++) {
    const line = lines[idx];
    const header = /^(#{1,3}) (.+)$/.exec(line);
    const quote = /^> ?(.*)$/.exec(line);
    if (header && !ctx.inEmbedTitle) {
      flushText();
      fragment.append(el('discord-header', { level: header[1].length }, inline(header[2], ctx)));
    } else if (quote) {
      flushText();
      const quoted = [quote[1]];
      while (idx + 1 < lines.length && /^> ?/.test(lines[idx + 1])) quoted.push(lines[++idx].replace(/^> ?/, ''));
      fragment.append(el('discord-quote', {}, inline(quoted.join('\n'), ctx)));
    } else {
      buffer.push(line);
    }
  }
  flushText();
  return fragment;
}

/** Refreshes every relative timestamp on the page (Discord's "in 2 minutes" keeps counting). */
export function refreshTimes(root, lang) {
  for (const node of root.querySelectorAll('discord-time[data-unix]')) {
    node.textContent = discordTimestamp(Number(node.dataset.unix), node.dataset.style, lang) ?? node.textContent;
  }
}
