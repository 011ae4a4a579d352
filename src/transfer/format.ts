/**
 * The export format (docs/export-format.md): the one place that writes it and reads it back.
 *
 * JSON is the reference (`format`, `version`, `exportedAt`, `guildId`, `feeds`); the CSV twin has
 * the same feed fields as columns and no envelope. Reading is in two levels: the file as a whole
 * (syntax, envelope, version, row count) fails with a FormatError; each feed row is then checked
 * on its own, so one bad row is reported without refusing the others.
 */
import { z } from 'zod';
import { ACCOUNT_NAME_PATTERN, CONTENT_KINDS, type ContentKind, type FeedListItem } from '@feedbot/feed-api-contract';
import { UserError } from '../interactions/errors.js';
import type { MessageKey, Vars } from '../i18n/index.js';
import { truncate } from '../render/text.js';
import { CsvSyntaxError, readCsv, unguardCell, writeCsv } from './csv.js';

const EXPORT_FORMAT = 'feedbot-feeds';
const EXPORT_VERSION = 1;
/** Most feed rows one import accepts (at 100 requests a minute, several windows already). */
export const MAX_IMPORT_ROWS = 500;
/** The CSV columns, in the order the export writes them. */
export const CSV_COLUMNS = ['id', 'cuenta', 'canal', 'tipos', 'filtros', 'estado'] as const;
/** Columns an imported CSV must have (any order; the others are optional). */
const REQUIRED_CSV_COLUMNS = ['cuenta', 'canal', 'tipos'] as const;
/** How `tipos` is written in one CSV cell, as /feed create's choices write it: `post+reel`. */
const KINDS_SEPARATOR = '+';
/**
 * The most a checked row keeps of the file's own free text, so that a preview kept in the pending
 * store stays small: a problem's label (the preview shows 60 characters of it) and an exported
 * state (only compared with `activo`; a shortened one ends in "…", so it never becomes `activo`).
 */
export const MAX_LABEL_LENGTH = 100;
export const MAX_STATE_LENGTH = 100;

const ExportedFeedSchema = z.object({
  id: z.number().int().positive(),
  cuenta: z.string(),
  canal: z.string(),
  tipos: z.array(z.string()),
  /** Only the number of filters: the API does not show their content. */
  filtros: z.number().int().nonnegative(),
  estado: z.string(),
});

export const ExportDocumentSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exportedAt: z.iso.datetime({ offset: true }),
  guildId: z.string().regex(/^\d{17,20}$/),
  feeds: z.array(ExportedFeedSchema),
});
type ExportDocument = z.infer<typeof ExportDocumentSchema>;

export function exportDocument(guildId: string, feeds: readonly FeedListItem[], exportedAt: Date): ExportDocument {
  return ExportDocumentSchema.parse({
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: exportedAt.toISOString(),
    guildId,
    feeds: feeds.map(({ id, cuenta, canal, tipos, filtros, estado }) => ({ id, cuenta, canal, tipos, filtros, estado })),
  });
}

export function toJson(doc: ExportDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export function toCsv(doc: ExportDocument): string {
  const rows = doc.feeds.map((f) => [String(f.id), f.cuenta, f.canal, f.tipos.join(KINDS_SEPARATOR), String(f.filtros), f.estado]);
  return writeCsv([[...CSV_COLUMNS], ...rows]);
}

/** The whole file is unusable; the key says why (localized by explain()). */
export class FormatError extends UserError {
  constructor(key: MessageKey, vars: Vars = {}) {
    super(key, vars);
  }
}

/** One feed the file asks for, checked. `row` counts feeds from 1 (in a CSV, the line after the header is row 1). */
export interface ImportRow {
  row: number;
  cuenta: string;
  canalId: string;
  tipos: ContentKind[];
  /** Filters the exported feed had (not importable: only their count is known). */
  filtros: number;
  /** The exported feed's state, when given (imported feeds start `activo`). */
  estado?: string;
}

export interface RowProblem {
  row: number;
  /** What the row names, for the report (may be empty when unreadable). */
  label: string;
  key: MessageKey;
  vars: Vars;
}

export type ParsedRow = { ok: true; feed: ImportRow } | { ok: false; problem: RowProblem };

export type FileKind = 'json' | 'csv';

/** Every row of `text` (a JSON export or a CSV), each checked on its own; throws FormatError when the file as a whole is unusable. */
export function readImportFile(text: string, kind: FileKind): ParsedRow[] {
  const raw = kind === 'json' ? jsonRows(text) : csvRows(text);
  if (raw.length === 0) throw new FormatError('transfer.file.empty');
  if (raw.length > MAX_IMPORT_ROWS) throw new FormatError('transfer.file.tooManyRows', { count: raw.length, max: MAX_IMPORT_ROWS });
  return raw.map((value, i) => checkRow(i + 1, value));
}

const EnvelopeSchema = z.looseObject({ format: z.literal(EXPORT_FORMAT), version: z.unknown(), feeds: z.unknown() });

function jsonRows(text: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch {
    throw new FormatError('transfer.file.notJson');
  }
  const envelope = EnvelopeSchema.safeParse(value);
  if (!envelope.success) throw new FormatError('transfer.file.notExport', { format: EXPORT_FORMAT });
  const { version, feeds } = envelope.data;
  if (version !== EXPORT_VERSION) throw new FormatError('transfer.file.version', { version: String(version), supported: EXPORT_VERSION });
  if (!Array.isArray(feeds)) throw new FormatError('transfer.file.notExport', { format: EXPORT_FORMAT });
  return feeds as unknown[];
}

function csvRows(text: string): Record<string, string>[] {
  let rows: string[][];
  try {
    rows = readCsv(text);
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw new FormatError('transfer.file.csvSyntax', { line: error.line });
    throw error;
  }
  const [header, ...data] = rows;
  if (!header) throw new FormatError('transfer.file.empty');
  const columns = header.map((name) => unguardCell(name).trim().toLowerCase());
  const missing = REQUIRED_CSV_COLUMNS.filter((c) => !columns.includes(c));
  if (missing.length > 0) throw new FormatError('transfer.file.csvHeader', { count: missing.length, missing: missing.join(', '), columns: REQUIRED_CSV_COLUMNS.join(', ') });
  return data.map((cells) => Object.fromEntries(columns.map((name, i) => [name, unguardCell(cells[i] ?? '').trim()])));
}

/** What one row of either kind may hold; `tipos` is a list in JSON and `post+reel` text in CSV. */
const LooseRowSchema = z.looseObject({
  cuenta: z.string(),
  canal: z.string(),
  tipos: z.union([z.array(z.string()), z.string()]),
  filtros: z.union([z.number(), z.string()]).optional(),
  estado: z.string().optional(),
});

const CHANNEL = /^(?:<#)?(\d{17,20})>?$/;

function checkRow(row: number, value: unknown): ParsedRow {
  const loose = LooseRowSchema.safeParse(value);
  const problem = (label: string, key: MessageKey, vars: Vars = {}): ParsedRow => ({ ok: false, problem: { row, label, key, vars } });
  if (!loose.success) return problem('', 'transfer.invalid.shape');
  const r = loose.data;
  const label = truncate(`${r.cuenta} → ${r.canal}`, MAX_LABEL_LENGTH);
  const cuenta = r.cuenta.trim().replace(/^@/, '');
  if (!ACCOUNT_NAME_PATTERN.test(cuenta)) return problem(label, 'transfer.invalid.cuenta');
  const channel = CHANNEL.exec(r.canal.trim())?.[1];
  if (!channel) return problem(label, 'transfer.invalid.canal');
  const names = (Array.isArray(r.tipos) ? r.tipos : r.tipos.split(KINDS_SEPARATOR)).map((k) => k.trim().toLowerCase());
  const unknown = names.filter((k) => !(CONTENT_KINDS as readonly string[]).includes(k));
  if (names.length === 0 || unknown.length > 0 || new Set(names).size !== names.length) {
    return problem(label, 'transfer.invalid.tipos', { kinds: CONTENT_KINDS.join(', ') });
  }
  const filtros = Number(r.filtros ?? 0);
  return {
    ok: true,
    feed: {
      row,
      cuenta,
      canalId: channel,
      tipos: CONTENT_KINDS.filter((k) => names.includes(k)),
      filtros: Number.isSafeInteger(filtros) && filtros > 0 ? filtros : 0,
      ...(r.estado ? { estado: truncate(r.estado, MAX_STATE_LENGTH) } : {}),
    },
  };
}

/** Same account (in any case: account names are case-insensitive) into the same channel: the same feed. */
export function feedIdentity(cuenta: string, canal: string): string {
  return `${cuenta.toLowerCase()} ${canal}`;
}
