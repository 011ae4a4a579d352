/**
 * The README's command table names commands and options as clients see them: its first column as
 * an English client does, its second as a Spanish one (the builders' name_localizations), never
 * the API words that are the base names (`canal`, `cuenta`) under English text. And it lists every
 * subcommand there is.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApplicationCommandOptionType, Locale, type APIApplicationCommandOption } from 'discord.js';
import { commands } from '../../src/commands.js';
import { isSlashCommand } from '../../src/interactions/command.js';

interface Node {
  name: string;
  type?: number;
  name_localizations?: Partial<Record<string, string | null>> | null;
  options?: APIApplicationCommandOption[];
}

const slash: Node[] = commands.filter(isSlashCommand).map((c) => c.data.toJSON() as Node);
const contextMenus: Node[] = commands.filter((c) => !isSlashCommand(c)).map((c) => c.data.toJSON() as Node);

const shown = (node: Node, locale: Locale): string => node.name_localizations?.[locale] ?? node.name;
const isBranch = (node: Node): boolean => node.type === ApplicationCommandOptionType.Subcommand || node.type === ApplicationCommandOptionType.SubcommandGroup;

/** The rows of the table under "## Commands": their cells, split on the pipes that are not escaped. */
function commandRows(): string[][] {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('\n## Commands\n'));
  const table = section.slice(section.indexOf('\n|')).split('\n\n')[0]!.trim().split('\n');
  return table.slice(2).map((row) => row.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
}

/**
 * The words of a cell's invocation (`/feed delete [id` \| `channel` \| `problems]`): its code spans,
 * the first a path from the command, each other a sibling subcommand or an option of the first.
 */
function invocations(cell: string): string[][] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/[[\]/]/g, ' ').trim().split(/\s+/));
}

/**
 * Reads a cell's invocation as `locale` shows commands: the subcommands it names (as English paths,
 * `feedbot audit-channel off`) and the words it could not find.
 */
function readCell(cell: string, locale: Locale): { subcommands: string[]; unknown: string[] } {
  const [first, ...others] = invocations(cell);
  if (!first) return { subcommands: [], unknown: [`no command in ${cell}`] };
  const unknown: string[] = [];
  let node: Node | undefined = slash.find((c) => shown(c, locale) === first[0]);
  if (!node) return { subcommands: [], unknown: [first[0]!] };
  const path: Node[] = [node];
  for (const word of first.slice(1)) {
    const child: Node | undefined = (node.options as Node[] | undefined)?.find((o) => shown(o, locale) === word);
    if (!child) unknown.push(word);
    else if (isBranch(child)) path.push((node = child));
  }
  const english = (nodes: Node[]) => nodes.map((n) => shown(n, Locale.EnglishUS)).join(' ');
  const subcommands = [english(path)];
  // Another span: an option of the subcommand, or a subcommand beside it (with its options).
  const parent = path.at(-2);
  for (const words of others) {
    const option = (node.options as Node[] | undefined)?.find((o) => !isBranch(o) && shown(o, locale) === words[0]);
    if (option && words.length === 1) continue;
    const sibling = (parent?.options as Node[] | undefined)?.find((o) => isBranch(o) && shown(o, locale) === words[0]);
    if (!sibling) {
      unknown.push(words.join(' '));
      continue;
    }
    subcommands.push(english([...path.slice(0, -1), sibling]));
    for (const word of words.slice(1)) if (!(sibling.options as Node[] | undefined)?.some((o) => shown(o, locale) === word)) unknown.push(word);
  }
  return { subcommands, unknown };
}

/** Every subcommand as an English client types it: `feed list`, `feedbot audit-channel set`. */
function subcommandPaths(): string[] {
  const paths: string[] = [];
  const visit = (node: Node, prefix: string[]) => {
    const here = [...prefix, shown(node, Locale.EnglishUS)];
    const branches = ((node.options ?? []) as Node[]).filter(isBranch);
    if (branches.length === 0) paths.push(here.join(' '));
    for (const b of branches) visit(b, here);
  };
  for (const c of slash) visit(c, []);
  return paths;
}

describe("the README's command table", () => {
  const rows = commandRows();

  it('has a column for English clients and one for Spanish clients', () => {
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(row).toHaveLength(4);
  });

  it.each([
    [0, Locale.EnglishUS],
    [1, Locale.SpanishES],
  ] as const)('column %i names every command and option as a %s client sees it', (column, locale) => {
    const wrong = rows
      .filter((row) => row[column]!.includes('`'))
      .flatMap((row) => readCell(row[column]!, locale).unknown.map((word) => `${word} in ${row[column]}`));
    expect(wrong).toEqual([]);
  });

  it('names the message commands as each client shows them', () => {
    const italic = rows.filter((row) => !row[0]!.includes('`')).map((row) => [row[0]!, row[1]!].map((cell) => /\*([^*]+)\*/.exec(cell)?.[1]));
    expect(italic).toEqual(contextMenus.map((c) => [shown(c, Locale.EnglishUS), shown(c, Locale.SpanishES)]));
  });

  it('lists every subcommand, in both columns of the same row', () => {
    const listed = rows.filter((row) => row[0]!.includes('`')).map((row) => [readCell(row[0]!, Locale.EnglishUS).subcommands, readCell(row[1]!, Locale.SpanishES).subcommands]);
    for (const [english, spanish] of listed) expect(spanish).toEqual(english);
    expect(subcommandPaths().filter((path) => !listed.some(([english]) => english!.includes(path)))).toEqual([]);
  });
});
