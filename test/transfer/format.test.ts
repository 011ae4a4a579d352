/**
 * The export format: what the export writes reads back the same (JSON and CSV), the CSV is RFC
 * 4180 with the formula-injection guard, and bad files or rows are refused with their reason.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { FeedListItem } from '@feedbot/feed-api-contract';
import { CsvSyntaxError, guardCell, readCsv, unguardCell, writeCsv } from '../../src/transfer/csv.js';
import {
  CSV_COLUMNS,
  ExportDocumentSchema,
  FormatError,
  MAX_IMPORT_ROWS,
  exportDocument,
  readImportFile,
  toCsv,
  toJson,
  type ParsedRow,
} from '../../src/transfer/format.js';

const GUILD = '1100000000000000001';
const C1 = '1300000000000000001';
const C2 = '1300000000000000002';
const AT = new Date('2026-11-21T12:00:00.000Z');

const feeds: FeedListItem[] = [
  { id: 1, cuenta: 'nasa', canal: C1, estado: 'activo', tipos: ['post', 'reel'], filtros: 0, ultimoPost: '2026-11-20T18:30:00.000Z' },
  { id: 2, cuenta: 'esa.int', canal: C2, estado: 'pausado', tipos: ['story'], filtros: 2, ultimoPost: null },
  // What a spreadsheet would run as a formula if written as is; and a cell that needs quotes.
  { id: 3, cuenta: 'x_y', canal: C2, estado: '=HYPERLINK("http://evil.test","click"), then', tipos: ['post'], filtros: 0, ultimoPost: null },
];

function formatError(run: () => unknown): { key: string; vars: unknown } {
  try {
    run();
  } catch (error) {
    if (error instanceof FormatError) return { key: error.key, vars: error.vars };
    throw error;
  }
  throw new Error('no FormatError');
}

const okRows = (rows: ParsedRow[]) => rows.map((r) => (r.ok ? r.feed : r.problem));

describe('export', () => {
  it('writes a versioned JSON document the schema accepts', () => {
    const doc = exportDocument(GUILD, feeds, AT);
    const parsed = ExportDocumentSchema.parse(JSON.parse(toJson(doc)));
    expect(parsed).toEqual({
      format: 'feedbot-feeds',
      version: 1,
      exportedAt: '2026-11-21T12:00:00.000Z',
      guildId: GUILD,
      feeds: [
        { id: 1, cuenta: 'nasa', canal: C1, tipos: ['post', 'reel'], filtros: 0, estado: 'activo' },
        { id: 2, cuenta: 'esa.int', canal: C2, tipos: ['story'], filtros: 2, estado: 'pausado' },
        { id: 3, cuenta: 'x_y', canal: C2, tipos: ['post'], filtros: 0, estado: feeds[2]!.estado },
      ],
    });
  });

  it('writes the CSV twin: header, CRLF, quoted where needed, formulas guarded', () => {
    const csv = toCsv(exportDocument(GUILD, feeds, AT));
    expect(csv.split('\r\n')).toEqual([
      CSV_COLUMNS.join(','),
      `1,nasa,${C1},post+reel,0,activo`,
      `2,esa.int,${C2},story,2,pausado`,
      `3,x_y,${C2},post,0,"'=HYPERLINK(""http://evil.test"",""click""), then"`,
      '',
    ]);
    const cells = readCsv(csv);
    expect(cells[3]![5]).toBe(`'${feeds[2]!.estado}`);
    expect(unguardCell(cells[3]![5]!)).toBe(feeds[2]!.estado);
  });

  it.each(['json', 'csv'] as const)('reads its own %s back as the same feeds', (kind) => {
    const doc = exportDocument(GUILD, feeds, AT);
    const rows = readImportFile(kind === 'json' ? toJson(doc) : toCsv(doc), kind);
    expect(okRows(rows)).toEqual([
      { row: 1, cuenta: 'nasa', canalId: C1, tipos: ['post', 'reel'], filtros: 0, estado: 'activo' },
      { row: 2, cuenta: 'esa.int', canalId: C2, tipos: ['story'], filtros: 2, estado: 'pausado' },
      { row: 3, cuenta: 'x_y', canalId: C2, tipos: ['post'], filtros: 0, estado: feeds[2]!.estado },
    ]);
  });
});

describe('CSV', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('guards %j as text and reads it back', (cell) => {
    expect(guardCell(cell)).toBe(`'${cell}`);
    expect(unguardCell(guardCell(cell))).toBe(cell);
    expect(readCsv(writeCsv([[cell]]))).toEqual([[`'${cell}`]]);
  });

  // A spreadsheet skips leading blanks (line breaks too) and reads full-width ＝ ＋ － ＠ as their
  // ASCII forms: these start formulas as surely as `=1+1` does.
  it.each(['\n=1+1', ' =1+1', '\u3000=1+1', '\u00a0+1', '＝1+1', '＋1', '－1', '＠SUM(A1)', ' \n＝1', "'=1+1", "'' -1"])(
    'guards %j, whose first non-blank character starts a formula, and reads it back',
    (cell) => {
      expect(guardCell(cell)).toBe(`'${cell}`);
      expect(unguardCell(guardCell(cell))).toBe(cell);
      expect(readCsv(writeCsv([[cell]])).map((row) => row.map(unguardCell))).toEqual([[cell]]);
    },
  );

  it('guards every cell whose first non-blank character starts a formula, and any cell reads back as written', () => {
    const blank = fc.constantFrom(' ', '\t', '\r', '\n', '\u3000', '\u00a0', "'");
    const start = fc.constantFrom('=', '+', '-', '@', '＝', '＋', '－', '＠', 'a', '1', '"', ',');
    const cell = fc.tuple(fc.array(blank, { maxLength: 3 }), start, fc.string({ maxLength: 8 })).map(([b, c, rest]) => b.join('') + c + rest);
    fc.assert(
      fc.property(fc.oneof(cell, fc.string()), (text) => {
        const written = guardCell(text);
        const firstNonBlank = /^'*\s*(.?)/u.exec(text)![1]!;
        if ('=+-@＝＋－＠'.includes(firstNonBlank) && firstNonBlank !== '') expect(written.startsWith("'")).toBe(true);
        expect(unguardCell(written)).toBe(text);
        expect(readCsv(`x,${writeCsv([[text]])}`)[0]!.slice(1).map(unguardCell).join('')).toBe(text);
      }),
    );
  });

  it('leaves other cells alone, a leading quote included', () => {
    expect(guardCell('nasa')).toBe('nasa');
    expect(unguardCell("'nasa")).toBe("'nasa");
  });

  it('reads quotes, doubled quotes, commas and line breaks in cells, LF or CRLF, a BOM, blank lines', () => {
    const text = '\uFEFFa,"b ""q"", c","line\r\nbreak"\n\n"",x,\r\nlast';
    expect(readCsv(text)).toEqual([
      ['a', 'b "q", c', 'line\r\nbreak'],
      ['', 'x', ''],
      ['last'],
    ]);
  });

  it.each([
    ['an unterminated quote', 'a,"b\nc', 1],
    ['text after a closing quote', 'a,"b"c', 1],
    ['a quote inside a plain cell', 'a\nb"c', 2],
  ])('refuses %s, naming the line', (_what, text, line) => {
    expect(() => readCsv(text)).toThrow(new CsvSyntaxError(line));
  });
});

describe('reading a file', () => {
  it.each([
    ['not JSON', '{', 'transfer.file.notJson'],
    ['another JSON document', '{"feeds": []}', 'transfer.file.notExport'],
    ['feeds that are not a list', '{"format":"feedbot-feeds","version":1,"feeds":{}}', 'transfer.file.notExport'],
    ['an empty list', '{"format":"feedbot-feeds","version":1,"feeds":[]}', 'transfer.file.empty'],
  ])('refuses %s', (_what, text, key) => {
    expect(formatError(() => readImportFile(text, 'json')).key).toBe(key);
  });

  it('refuses a newer version, saying which it reads', () => {
    expect(formatError(() => readImportFile('{"format":"feedbot-feeds","version":2,"feeds":[]}', 'json'))).toEqual({
      key: 'transfer.file.version',
      vars: { version: '2', supported: 1 },
    });
  });

  it('refuses more rows than one import takes', () => {
    const row = { cuenta: 'nasa', canal: C1, tipos: ['post'] };
    const text = JSON.stringify({ format: 'feedbot-feeds', version: 1, feeds: Array.from({ length: MAX_IMPORT_ROWS + 1 }, () => row) });
    expect(formatError(() => readImportFile(text, 'json'))).toEqual({ key: 'transfer.file.tooManyRows', vars: { count: MAX_IMPORT_ROWS + 1, max: MAX_IMPORT_ROWS } });
  });

  it.each([
    ['a CSV without the required columns', 'id,cuenta\n1,nasa\n', { key: 'transfer.file.csvHeader', vars: { count: 2, missing: 'canal, tipos', columns: 'cuenta, canal, tipos' } }],
    ['a malformed CSV', 'cuenta,canal,tipos\n"nasa,1,post\n', { key: 'transfer.file.csvSyntax', vars: { line: 2 } }],
    ['a CSV with only a header', 'cuenta,canal,tipos\r\n', { key: 'transfer.file.empty', vars: {} }],
    ['an empty CSV', '', { key: 'transfer.file.empty', vars: {} }],
  ])('refuses %s', (_what, text, expected) => {
    expect(formatError(() => readImportFile(text, 'csv'))).toEqual(expected);
  });

  it('reads a hand-written CSV: columns in any order and case, extra columns, @names, channel mentions', () => {
    const text = `Tipos,Notes,Canal,Cuenta\nPost+REEL,hello,<#${C1}>,@nasa\n`;
    expect(okRows(readImportFile(text, 'csv'))).toEqual([{ row: 1, cuenta: 'nasa', canalId: C1, tipos: ['post', 'reel'], filtros: 0 }]);
  });

  it('checks each row on its own, keeping the good ones', () => {
    const rows = [
      { cuenta: 'ok', canal: C1, tipos: ['post'] },
      'not a feed',
      { cuenta: 'bad name!', canal: C1, tipos: ['post'] },
      { cuenta: 'ok2', canal: '12345', tipos: ['post'] },
      { cuenta: 'ok3', canal: C1, tipos: ['video'] },
      { cuenta: 'ok4', canal: C1, tipos: ['post', 'post'] },
      { cuenta: 'ok5', canal: C1, tipos: [] },
    ];
    const parsed = readImportFile(JSON.stringify({ format: 'feedbot-feeds', version: 1, feeds: rows }), 'json');
    expect(parsed.map((r) => (r.ok ? `ok ${r.feed.row}` : `${r.problem.row} ${r.problem.key} ${r.problem.label}`))).toEqual([
      'ok 1',
      '2 transfer.invalid.shape ',
      `3 transfer.invalid.cuenta bad name! → ${C1}`,
      '4 transfer.invalid.canal ok2 → 12345',
      `5 transfer.invalid.tipos ok3 → ${C1}`,
      `6 transfer.invalid.tipos ok4 → ${C1}`,
      `7 transfer.invalid.tipos ok5 → ${C1}`,
    ]);
  });
});
