/**
 * The playground server's file routes on their own (no emulator, sandbox or bot behind them):
 * a path the browser could never have encoded is the client's mistake, answered 400 without a
 * trace of the server's insides, and it does not stop the files from being served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscordEmulator } from '@feedbot/discord-emulator';
import type { RunningPlayground } from '../src/playground.js';
import { startBarePlayground } from './playground-fixture.js';

let playground: RunningPlayground;

beforeAll(async () => {
  // The file routes never reach the emulator.
  playground = await startBarePlayground({} as DiscordEmulator, '1');
});

afterAll(() => playground.close());

const get = async (path: string) => {
  const res = await fetch(`${playground.url}${path}`);
  return { status: res.status, body: await res.text() };
};

describe('playground file routes', () => {
  it.each(['/static/%E0%A4%A', '/static/%', '/vendor/%', '/vendor/lit/%E0%A4%A.js'])('answers %s with 400 and no stack trace', async (path) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body).not.toMatch(/URIError|at .*\.ts|node:/);
  });

  it('still serves its files after a malformed path', async () => {
    await get('/static/%');
    await expect(get('/static/style.css')).resolves.toMatchObject({ status: 200 });
    await expect(get('/vendor/lit/index.js')).resolves.toMatchObject({ status: 200 });
  });
});
