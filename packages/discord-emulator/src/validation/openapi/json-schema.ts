/**
 * A checker for the JSON Schema (2020-12, as OpenAPI 3.1 uses it) keywords Discord's OpenAPI
 * document uses in interaction responses: type, const, enum, lengths, bounds, pattern, format,
 * items, properties, required, additionalProperties, maxProperties, allOf, anyOf, oneOf, $ref.
 * Problems are reported the way Discord reports a 50035 Invalid Form Body (codes such as
 * BASE_TYPE_MAX_LENGTH), each naming the schema that refused it.
 *
 * `oneOf` is read as `anyOf`: Discord marks its unions `x-discord-union: oneOf` on `anyOf` and
 * the other way round, and overlapping branches (an integer is a number too) are not errors there.
 * A snowflake may be a non-negative integer as well as a string, as Discord's API takes both.
 */
import type { PathSegment } from '../../errors.js';
import type { JsonSchema } from './subset.js';

type SchemaObject = { [keyword: string]: unknown };

export interface SchemaIssue {
  path: PathSegment[];
  code: string;
  message: string;
  /** The component schema the failing keyword belongs to (`RichEmbed`), or `root`. */
  schema: string;
  /** For BASE_TYPE_CHOICES: the values allowed, so that a union can list them all. */
  choices?: unknown[];
}

const REF_PREFIX = '#/components/schemas/';
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Discord's wording for a value of the wrong type. */
function typeProblem(value: unknown, types: unknown[]): { code: string; message: string } {
  if (value === null) return { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' };
  switch (types.find((t) => t !== 'null')) {
    case 'object':
      return { code: 'MODEL_TYPE_CONVERT', message: 'Only dictionaries may be used in a ModelType' };
    case 'array':
      return { code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' };
    case 'integer':
      return { code: 'NUMBER_TYPE_COERCE', message: `Value "${shown(value)}" is not int.` };
    case 'number':
      return { code: 'NUMBER_TYPE_COERCE', message: `Value "${shown(value)}" is not a number.` };
    case 'boolean':
      return { code: 'BOOLEAN_TYPE_CONVERT', message: `Could not interpret "${shown(value)}" as boolean.` };
    default:
      return { code: 'STRING_TYPE_CONVERT', message: `Could not interpret "${shown(value)}" as string.` };
  }
}

const sameValue = (a: unknown, b: unknown) => a === b || (typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b));
const codePoints = (s: string) => [...s].length;

export class SchemaChecker {
  constructor(private readonly schemas: Record<string, JsonSchema>) {}

  check(schema: JsonSchema, value: unknown, path: PathSegment[] = [], where = 'root'): SchemaIssue[] {
    const out: SchemaIssue[] = [];
    this.visit(schema, value, path, where, out);
    return out;
  }

  schema(name: string): JsonSchema {
    const target = this.schemas[name];
    if (target === undefined) throw new Error(`no schema ${name} in the OpenAPI subset`);
    return target;
  }

  private visit(schema: JsonSchema, value: unknown, path: PathSegment[], where: string, out: SchemaIssue[]): void {
    if (schema === true) return;
    const add = (code: string, message: string, at = path) => out.push({ path: at, code, message, schema: where });
    const choices = (allowed: unknown[]) =>
      out.push({ path, code: 'BASE_TYPE_CHOICES', message: `Value must be one of (${allowed.map(shown).join(', ')}).`, schema: where, choices: allowed });
    if (schema === false) return void add('BASE_TYPE_INVALID', 'This field is not allowed');
    const s = schema as SchemaObject;
    if (s.format === 'snowflake' && Number.isSafeInteger(value) && (value as number) >= 0) return;
    if (typeof s.$ref === 'string') {
      const name = s.$ref.startsWith(REF_PREFIX) ? s.$ref.slice(REF_PREFIX.length) : s.$ref;
      this.visit(this.schema(name), value, path, name, out);
    }
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? (s.type as unknown[]) : [s.type];
      if (!types.some((t) => hasType(value, t))) {
        const problem = typeProblem(value, types);
        return void add(problem.code, problem.message);
      }
    }
    if ('const' in s && !sameValue(value, s.const)) choices([s.const]);
    if (Array.isArray(s.enum) && !s.enum.some((e) => sameValue(value, e))) choices(s.enum as unknown[]);
    if (typeof value === 'string') this.visitString(s, value, add);
    else if (typeof value === 'number') this.visitNumber(s, value, add);
    else if (Array.isArray(value)) this.visitArray(s, value, path, where, out, add);
    else if (typeof value === 'object' && value !== null) this.visitObject(s, value as Record<string, unknown>, path, where, out, add);
    if (Array.isArray(s.allOf)) for (const part of s.allOf as JsonSchema[]) this.visit(part, value, path, where, out);
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      if (Array.isArray(s[keyword])) this.union(s[keyword] as JsonSchema[], value, path, where, out);
    }
  }

  private visitString(s: SchemaObject, value: string, add: (code: string, message: string) => void): void {
    const length = codePoints(value);
    if (typeof s.maxLength === 'number' && length > s.maxLength) add('BASE_TYPE_MAX_LENGTH', `Must be ${s.maxLength} or fewer in length.`);
    if (typeof s.minLength === 'number' && length < s.minLength) add('BASE_TYPE_MIN_LENGTH', `Must be ${s.minLength} or more in length.`);
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) {
      if (s.format === 'snowflake') add('NUMBER_TYPE_COERCE', `Value "${value}" is not snowflake.`);
      else add('STRING_TYPE_REGEX', `String value did not match validation regex.`);
    }
    if (s.format === 'uri' && !URL.canParse(value)) add('URL_TYPE_INVALID_URL', 'Not a well formed URL.');
    if (s.format === 'date-time' && Number.isNaN(Date.parse(value))) add('DATE_TYPE_PARSE', `Could not parse ${value}. Should be ISO8601.`);
  }

  private visitNumber(s: SchemaObject, value: number, add: (code: string, message: string) => void): void {
    const int32 = s.format === 'int32';
    const max = typeof s.maximum === 'number' ? s.maximum : int32 ? INT32.max : s.format === 'int64' ? Number.MAX_SAFE_INTEGER : undefined;
    const min = typeof s.minimum === 'number' ? s.minimum : int32 ? INT32.min : s.format === 'int64' ? Number.MIN_SAFE_INTEGER : undefined;
    const kind = Number.isInteger(value) ? 'int' : 'float';
    if (max !== undefined && value > max) add('NUMBER_TYPE_MAX', `${kind} value should be less than or equal to ${max}.`);
    if (min !== undefined && value < min) add('NUMBER_TYPE_MIN', `${kind} value should be greater than or equal to ${min}.`);
  }

  private visitArray(s: SchemaObject, value: unknown[], path: PathSegment[], where: string, out: SchemaIssue[], add: (code: string, message: string) => void): void {
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) add('BASE_TYPE_MAX_LENGTH', `Must be ${s.maxItems} or fewer in length.`);
    if (typeof s.minItems === 'number' && value.length < s.minItems) add('BASE_TYPE_MIN_LENGTH', `Must be ${s.minItems} or more in length.`);
    if (s.uniqueItems === true && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) add('ARRAY_ITEM_VALUE_ALREADY_EXISTS', 'The items must be unique.');
    if (s.items !== undefined) value.forEach((item, i) => this.visit(s.items as JsonSchema, item, [...path, i], where, out));
  }

  private visitObject(
    s: SchemaObject,
    value: Record<string, unknown>,
    path: PathSegment[],
    where: string,
    out: SchemaIssue[],
    add: (code: string, message: string, at?: PathSegment[]) => void,
  ): void {
    const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
    if (Array.isArray(s.required)) {
      for (const key of s.required as string[]) if (!(key in value)) add('BASE_TYPE_REQUIRED', 'This field is required', [...path, key]);
    }
    const keys = Object.keys(value);
    if (typeof s.maxProperties === 'number' && keys.length > s.maxProperties) add('BASE_TYPE_MAX_LENGTH', `Must be ${s.maxProperties} or fewer in length.`);
    for (const key of keys) {
      if (key in properties) this.visit(properties[key]!, value[key], [...path, key], where, out);
      else if (s.additionalProperties !== undefined) this.visit(s.additionalProperties as JsonSchema, value[key], [...path, key], where, out);
    }
  }

  /**
   * The value fits one branch, or the problems of the branch it came closest to are reported;
   * when it is none of a list of constants, or of variants told apart by their `type` field,
   * one BASE_TYPE_CHOICES / UNION_TYPE_CHOICES lists them all.
   */
  private union(branches: JsonSchema[], value: unknown, path: PathSegment[], where: string, out: SchemaIssue[]): void {
    const results: SchemaIssue[][] = [];
    // `{type: 'null'}` (the "or null" of an optional field) says nothing about a value that is not null.
    const nullOnly: boolean[] = [];
    for (const branch of branches) {
      const issues = this.check(branch, value, path, where);
      if (issues.length === 0) return;
      results.push(issues);
      nullOnly.push(typeof branch === 'object' && branch.type === 'null');
    }
    if (results.length === 0) return;
    const allowed = (at: PathSegment[]) => this.choicesEverywhere(results, at);
    const constants = allowed(path);
    if (constants) return void out.push({ path, code: 'BASE_TYPE_CHOICES', message: `Value must be one of (${constants.map(shown).join(', ')}).`, schema: where, choices: constants });
    const variants = allowed([...path, 'type']);
    if (variants) {
      const message = `Value of field "type" must be one of (${variants.map(shown).join(', ')}).`;
      return void out.push({ path: [...path, 'type'], code: 'UNION_TYPE_CHOICES', message, schema: where, choices: variants });
    }
    // Fewest problems wins; a value of the wrong type counts more than one out of bounds.
    const typeProblems = (issues: SchemaIssue[]) => issues.filter((i) => TYPE_CODES.has(i.code)).length / 2;
    const ranked = results.map((issues, i) => ({ issues, rank: issues.length + typeProblems(issues) + this.misfit(issues, path) + (nullOnly[i] ? 1 : 0) }));
    out.push(...ranked.reduce((best, r) => (r.rank < best.rank ? r : best)).issues);
  }

  /** When every branch refused the value at `at` for not being one of its choices: all those choices. */
  private choicesEverywhere(results: SchemaIssue[][], at: PathSegment[]): unknown[] | undefined {
    const found = new Set<unknown>();
    for (const issues of results) {
      const here = issues.filter((i) => i.code === 'BASE_TYPE_CHOICES' && samePath(i.path, at));
      if (here.length === 0) return undefined;
      // The branch's last word on its choices (an `enum` narrowing a shared list comes first).
      for (const choice of here[0]!.choices ?? []) found.add(choice);
    }
    return [...found];
  }

  /** How far a branch is off: not even the value's type, not the variant its `type` field names. */
  private misfit(issues: SchemaIssue[], path: PathSegment[]): number {
    if (issues.some((i) => samePath(i.path, path) && TYPE_CODES.has(i.code))) return 1000;
    if (issues.some((i) => i.code === 'BASE_TYPE_CHOICES' && samePath(i.path, [...path, 'type']))) return 500;
    return 0;
  }
}

const TYPE_CODES = new Set(['BASE_TYPE_REQUIRED', 'MODEL_TYPE_CONVERT', 'LIST_TYPE_CONVERT', 'NUMBER_TYPE_COERCE', 'BOOLEAN_TYPE_CONVERT', 'STRING_TYPE_CONVERT']);
const samePath = (a: PathSegment[], b: PathSegment[]) => a.length === b.length && a.every((p, i) => p === b[i]);
