/**
 * Vitest fixtures for tests that make their own data folders, stores and sandboxes. Everything
 * made is cleaned up when the test finishes, last made first, so a sandbox is closed before its
 * folder is removed.
 */
import { rm } from 'node:fs/promises';
import { test as base, type TestContext } from 'vitest';
import type { SandboxOptions } from '../src/index.js';
import { SandboxStore, type StoreOptions } from '../src/store.js';
import { startTestSandbox, tempDir, type TestSandbox } from './helpers.js';

export interface SandboxFixtures {
  /** Makes a new empty temporary folder. */
  makeDataDir: () => Promise<string>;
  /** Opens the store of a database file (or ':memory:'), as the sandbox and the admin CLI do. */
  openStore: (file: string, options?: StoreOptions) => Promise<SandboxStore>;
  /** Starts a sandbox, in a new temporary folder unless `options.dataDir` names one. */
  startSandbox: (options?: Partial<SandboxOptions>) => Promise<TestSandbox>;
}

/** A fixture that hands the test `make`, and cleans up whatever it made once the test finishes. */
function cleanedUp<A extends unknown[], T>(make: (...args: A) => Promise<T>, cleanup: (made: T) => Promise<unknown>) {
  return async ({ onTestFinished }: TestContext, use: (make: (...args: A) => Promise<T>) => Promise<void>): Promise<void> => {
    await use(async (...args) => {
      const made = await make(...args);
      onTestFinished(async () => {
        await cleanup(made);
      });
      return made;
    });
  };
}

export const test = base.extend<SandboxFixtures>({
  makeDataDir: cleanedUp(() => tempDir(), (dir) => rm(dir, { recursive: true, force: true })),
  openStore: cleanedUp((file: string, options?: StoreOptions) => SandboxStore.open(file, options), (store) => store.close()),
  startSandbox: cleanedUp((options: Partial<SandboxOptions> = {}) => startTestSandbox(options), (sandbox) => sandbox.dispose()),
});
