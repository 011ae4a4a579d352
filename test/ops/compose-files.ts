/**
 * The files an operator is handed for `docker compose`, as they would hand them to it: the shipped
 * compose.yaml beside a `.env` made from the shipped `.env.example` by editing its lines, in a
 * temporary folder. Shared by the compose test and the operator-path test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `.env.example` with `values` written into its own lines (`NAME=` → `NAME=value`), as a user
 * edits the file; a name the file has no line for is appended. Nothing else changes.
 */
export function fillEnv(example: string, values: Record<string, string>): string {
  let text = example;
  for (const [name, value] of Object.entries(values)) {
    const line = new RegExp(`^${name}=.*$`, 'm');
    text = line.test(text) ? text.replace(line, () => `${name}=${value}`) : `${text.replace(/\n?$/, '\n')}${name}=${value}\n`;
  }
  return text;
}

/** A temporary folder holding `.env` (from `.env.example` and `values`) and, if asked, compose.yaml. */
export async function operatorFolder(values: Record<string, string>, opts: { compose?: boolean } = {}): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'feedbot-operator-'));
  const example = await readFile(join(REPO_ROOT, '.env.example'), 'utf8');
  await writeFile(join(dir, '.env'), fillEnv(example, values), { mode: 0o600 });
  if (opts.compose) await copyFile(join(REPO_ROOT, 'compose.yaml'), join(dir, 'compose.yaml'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Dummy values for the README's three required variables: never real secrets. */
export const DUMMY_REQUIRED = {
  DISCORD_TOKEN: 'MTAwMDAwMDAwMDAwMDAwMDAw.dummy.not-a-real-token',
  FEED_API_URL: 'https://feed-api.example',
  KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 7).toString('base64'),
} as const;

/** The path of a program on PATH, or undefined. */
export function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, program);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Why a test needing `program` (a Debian package) cannot run here, or undefined when it can.
 * Under CI the absence is an error: CI installs it (.ci/run).
 */
export function missingProgram(program: string, debianPackage: string): string | undefined {
  if (onPath(program)) return undefined;
  const reason = `${program} not found (apt-get install ${debianPackage}); skipping`;
  if (process.env.CI === 'true') throw new Error(`${reason} — not allowed under CI`);
  return reason;
}

/** Runs a program to completion; its exit code and both outputs. */
export function run(file: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string }): { code: number; out: string; err: string } {
  try {
    const out = execFileSync(file, args, { cwd: opts.cwd, env: opts.env ?? process.env, input: opts.input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], timeout: 60_000 });
    return { code: 0, out, err: '' };
  } catch (err) {
    const e = err as { status?: number | null; stdout?: string; stderr?: string };
    return { code: e.status ?? -1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}
