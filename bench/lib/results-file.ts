/**
 * Reads a results file (bench/results.json, or the copy of one kept from an older checkout to
 * serve as the "before" of a comparison) and checks it is one: a wrong path or another JSON file
 * is refused in one line before a 13-minute run starts, not as a TypeError once it is over.
 * Unknown keys are kept, so files of older and newer versions of the bench both read.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { BenchResults } from './report.js';

const figure = z.number().nullable();

const metricSchema = z.looseObject({
  name: z.string(),
  unit: z.string(),
  value: figure,
  baseline: figure.optional(),
  ratio: figure.optional(),
  target: z.string().optional(),
  met: z.boolean().nullable().optional(),
});

const scenarioSchema = z.looseObject({
  id: z.number().int(),
  key: z.string(),
  title: z.string(),
  baseline: z.string(),
  params: z.record(z.string(), z.unknown()),
  metrics: z.array(metricSchema),
  details: z.record(z.string(), z.unknown()),
  notes: z.array(z.string()),
  durationMs: z.number(),
  error: z.string().optional(),
});

const resultsSchema = z.looseObject({
  generatedAt: z.iso.datetime(),
  quick: z.boolean(),
  machine: z.looseObject({
    cpuModel: z.string(),
    cores: z.number(),
    totalMemoryMb: z.number(),
    platform: z.string(),
    kernel: z.string(),
    node: z.string(),
    v8: z.string(),
  }),
  git: z.looseObject({ commit: z.string(), dirty: z.boolean() }).optional(),
  durationMs: z.number(),
  scenarios: z.array(scenarioSchema),
}) satisfies z.ZodType<BenchResults>;

/** `text` as results; throws one line naming `file` and the first thing wrong. */
export function parseResults(text: string, file: string): BenchResults {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = resultsSchema.safeParse(json);
  if (!parsed.success) {
    const [first, ...rest] = parsed.error.issues;
    const where = first!.path.length > 0 ? first!.path.join('.') : '(top level)';
    const more = rest.length > 0 ? ` (and ${rest.length} more)` : '';
    throw new Error(`${file} is not a bench results file (npm run bench writes one): ${where}: ${first!.message}${more}`);
  }
  return parsed.data;
}

export function readResults(file: string): BenchResults {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseResults(text, file);
}
