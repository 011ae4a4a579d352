/**
 * Plural forms in catalogue sentences, ICU style: `{count, plural, one {# feed} other {# feeds}}`
 * (`=0 {…}` for an exact number; `#` is the number). The form is chosen by Intl.PluralRules for
 * the catalogue's language, so "1 feed(s)" and "petición(es)" never reach a reader. A branch may
 * hold `{placeholders}`; it may not hold another plural.
 */

type PluralVars = Record<string, string | number>;

interface PluralBlock {
  start: number;
  end: number;
  name: string;
  branches: Map<string, string>;
}

const HEAD = /\{(\w+), plural,/y;

/** The plural blocks of `template`, in order; an unterminated one is left as text. */
function pluralBlocks(template: string): PluralBlock[] {
  const blocks: PluralBlock[] = [];
  for (let i = template.indexOf('{'); i >= 0; i = template.indexOf('{', i + 1)) {
    HEAD.lastIndex = i;
    const head = HEAD.exec(template);
    if (!head) continue;
    const branches = new Map<string, string>();
    let at = HEAD.lastIndex;
    let closed = -1;
    for (;;) {
      const selector = /\s*(=\d+|\w+)\s*\{/y;
      selector.lastIndex = at;
      const found = selector.exec(template);
      if (!found) {
        const close = /\s*\}/y;
        close.lastIndex = at;
        if (close.exec(template)) closed = close.lastIndex;
        break;
      }
      let depth = 1;
      let j = selector.lastIndex;
      for (; j < template.length && depth > 0; j++) {
        if (template[j] === '{') depth++;
        else if (template[j] === '}') depth--;
      }
      if (depth > 0) break;
      branches.set(found[1]!, template.slice(selector.lastIndex, j - 1));
      at = j;
    }
    if (closed < 0 || !branches.has('other')) continue;
    blocks.push({ start: i, end: closed, name: head[1]!, branches });
    i = closed - 1;
  }
  return blocks;
}

const rulesByLang = new Map<string, Intl.PluralRules>();

function rules(lang: string): Intl.PluralRules {
  let r = rulesByLang.get(lang);
  if (!r) rulesByLang.set(lang, (r = new Intl.PluralRules(lang)));
  return r;
}

/** Intl.PluralRules#select, remembered for the small whole numbers answers count with. */
const categoryCache = new Map<string, string>();

function pluralCategory(lang: string, n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 1_000) return rules(lang).select(n);
  const key = `${lang}:${n}`;
  let category = categoryCache.get(key);
  if (category === undefined) categoryCache.set(key, (category = rules(lang).select(n)));
  return category;
}

/**
 * The blocks of each template seen, parsed once: templates are the catalogues' sentences (a fixed,
 * small set), and t() runs on every answer's every line (bench scenario 1 spent a tenth of a
 * /feed list parsing them again).
 */
const blocksByTemplate = new Map<string, readonly PluralBlock[]>();

function parsedBlocks(template: string): readonly PluralBlock[] {
  let blocks = blocksByTemplate.get(template);
  if (!blocks) blocksByTemplate.set(template, (blocks = template.includes(', plural,') ? pluralBlocks(template) : []));
  return blocks;
}

/** `template` with each plural block replaced by the branch `vars` chooses; a block whose number is missing is left as is. */
export function selectPlurals(lang: string, template: string, vars: PluralVars | undefined): string {
  const blocks = parsedBlocks(template);
  if (blocks.length === 0) return template;
  let out = '';
  let from = 0;
  for (const block of blocks) {
    const value = vars?.[block.name];
    const n = typeof value === 'number' ? value : Number(value);
    out += template.slice(from, block.start);
    if (value === undefined || !Number.isFinite(n)) out += template.slice(block.start, block.end);
    else {
      const branch = block.branches.get(`=${n}`) ?? block.branches.get(pluralCategory(lang, n)) ?? block.branches.get('other')!;
      out += branch.replace(/#/g, `{${block.name}}`);
    }
    from = block.end;
  }
  return out + template.slice(from);
}

/**
 * Every sentence `template` can become, `#` written as its `{placeholder}`: what a reader may see,
 * for checks that compare catalogues (placeholders) or quote them (the guide).
 */
export function pluralVariants(template: string): string[] {
  const blocks = pluralBlocks(template);
  let variants = [''];
  let from = 0;
  for (const block of blocks) {
    const before = template.slice(from, block.start);
    const forms = [...new Set(block.branches.values())].map((b) => b.replace(/#/g, `{${block.name}}`));
    variants = variants.flatMap((v) => forms.map((f) => v + before + f));
    from = block.end;
  }
  return variants.map((v) => v + template.slice(from));
}

/** The names a template's plural blocks count with. */
export function pluralNames(template: string): string[] {
  return pluralBlocks(template).map((b) => b.name);
}
