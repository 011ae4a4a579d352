import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The binary `npx tsx` resolves to, without npm's own start-up and warnings.
export const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment without any of the variables the scripts read, so the caller's shell cannot leak in. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'KEY_ENCRYPTION_SECRET',
    'NEW_KEY_ENCRYPTION_SECRET',
    'KEY_ENCRYPTION_SECRET_PREVIOUS',
    'DATABASE_URL',
    'KEY_STORE_NAMESPACE',
    'LOG_LEVEL',
  ]) {
    delete env[name];
  }
  return { ...env, ...extra };
}

export function runScript(script: string, env: NodeJS.ProcessEnv, timeoutMs = 20_000, args: string[] = []): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    // Own process group: the tsx CLI runs the script in a child of its own, and a timeout must kill both.
    const child = spawn(TSX, ['--conditions=@feedbot/source', path.join(ROOT, script), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`${script} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
