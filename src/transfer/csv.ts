/**
 * RFC 4180 CSV, the small part the export needs: writing (CRLF, quoted when needed, with the
 * spreadsheet formula-injection guard) and strict reading (quoted fields, doubled quotes, CRLF or
 * LF, a UTF-8 BOM as spreadsheets save it).
 */

/**
 * Cells a spreadsheet would read as a formula (OWASP "CSV injection"): a tab or CR first, or a
 * first non-blank character `= + - @` — spreadsheets skip leading blanks, line breaks included,
 * and read the full-width and small forms (＝ ＋ － ＠, ﹦ ﹢ ﹣ ﹫) and the minus sign as their ASCII
 * twins. Such a cell is written with a leading `'`, which spreadsheets show as text and
 * `unguardCell` removes. Leading quotes before such a start are part of the pattern, so a cell that
 * already begins with `'` and a formula gets one more and reads back exactly as it was.
 */
const FORMULA_START = /^'*(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B\u2212])/u;

export function guardCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export function unguardCell(text: string): string {
  return text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text;
}

function quoteCell(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows to CSV text, every cell guarded and quoted as needed, CRLF after every row. */
export function writeCsv(rows: readonly (readonly string[])[]): string {
  return rows.map((row) => `${row.map((cell) => quoteCell(guardCell(cell))).join(',')}\r\n`).join('');
}

export class CsvSyntaxError extends Error {
  constructor(readonly line: number) {
    super(`CSV syntax error on line ${line}`);
    this.name = new.target.name;
  }
}

/**
 * CSV text to rows of raw cells (not unguarded: that is the reader of each cell's business).
 * Blank lines are skipped; a quote inside an unquoted cell or text after a closing quote is an error.
 */
export function readCsv(text: string): string[][] {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  /** The cell was quoted: nothing but a separator may follow its closing quote. */
  let quoted = false;
  let line = 1;
  let i = 0;
  const endCell = () => {
    row.push(cell);
    cell = '';
    quoted = false;
  };
  const endRow = () => {
    endCell();
    if (row.length > 1 || row[0] !== '') rows.push(row);
    row = [];
  };
  while (i < input.length) {
    const c = input[i]!;
    if (c === ',') {
      endCell();
      i += 1;
    } else if (c === '\r' || c === '\n') {
      endRow();
      i += c === '\r' && input[i + 1] === '\n' ? 2 : 1;
      line += 1;
    } else if (c === '"' && cell === '' && !quoted) {
      // Up to the closing quote, "" standing for one quote; line breaks belong to the cell.
      quoted = true;
      const openedOn = line;
      i += 1;
      for (;;) {
        // Unterminated: the line where the quote opened is the one to fix.
        if (i >= input.length) throw new CsvSyntaxError(openedOn);
        const q = input[i]!;
        i += 1;
        if (q !== '"') {
          if (q === '\n') line += 1;
          cell += q;
        } else if (input[i] === '"') {
          cell += '"';
          i += 1;
        } else break;
      }
    } else if (quoted || c === '"') {
      throw new CsvSyntaxError(line);
    } else {
      cell += c;
      i += 1;
    }
  }
  if (cell !== '' || quoted || row.length > 0) endRow();
  return rows;
}
