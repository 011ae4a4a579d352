/**
 * CORS on the control API: none by default; with `corsOrigin`, for that exact origin only (the
 * page that drives the emulator), never for another port of the same machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscordEmulator } from '../src/index.js';
import { DiscordEmulator as Emulator } from '../src/index.js';
import { emulatorOptions, startTestEmulator } from './helpers.js';
import { rawRequest } from './raw-http.js';

const PAGE = 'http://127.0.0.1:8080';
const OTHER_PAGES = ['http://localhost:5173', 'http://127.0.0.1:8081', 'http://localhost:8080', 'https://127.0.0.1:8080', 'null', 'https://evil.example'];

let plain: DiscordEmulator;
let withPage: DiscordEmulator;

beforeAll(async () => {
  [plain, withPage] = await Promise.all([startTestEmulator(), startTestEmulator({ corsOrigin: PAGE })]);
});

afterAll(async () => {
  await Promise.all([plain?.close(), withPage?.close()]);
});

const preflight = (emu: DiscordEmulator, origin: string) =>
  rawRequest(emu.apiUrl, {
    method: 'OPTIONS',
    path: '/_emulator/interactions',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });

describe('CORS', () => {
  it('sends no CORS headers by default, not even to a loopback page', async () => {
    for (const origin of [PAGE, ...OTHER_PAGES]) {
      const info = await rawRequest(plain.apiUrl, { path: '/_emulator', headers: { origin } });
      expect(info.status).toBe(200);
      expect(info.headers['access-control-allow-origin'], origin).toBeUndefined();
      const asked = await preflight(plain, origin);
      expect(asked.status, origin).toBe(403);
      expect(asked.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('allows the configured origin, exactly', async () => {
    const info = await rawRequest(withPage.apiUrl, { path: '/_emulator', headers: { origin: PAGE } });
    expect(info.headers['access-control-allow-origin']).toBe(PAGE);
    expect(info.headers.vary).toMatch(/origin/i);
    const asked = await preflight(withPage, PAGE);
    expect(asked.status).toBe(204);
    expect(asked.headers).toMatchObject({ 'access-control-allow-origin': PAGE, 'access-control-allow-headers': 'content-type' });
    expect(asked.headers['access-control-allow-methods']).toContain('POST');
    const cleared = await rawRequest(withPage.apiUrl, { method: 'DELETE', path: '/_emulator/records', headers: { origin: PAGE } });
    expect(cleared.status).toBe(204);
    expect(cleared.headers['access-control-allow-origin']).toBe(PAGE);
  });

  it('refuses every other origin, another port of the same machine included', async () => {
    for (const origin of OTHER_PAGES) {
      const info = await rawRequest(withPage.apiUrl, { path: '/_emulator', headers: { origin } });
      expect(info.headers['access-control-allow-origin'], origin).toBeUndefined();
      const asked = await preflight(withPage, origin);
      expect(asked.status, origin).toBe(403);
      expect(asked.headers['access-control-allow-origin']).toBeUndefined();
      const write = await rawRequest(withPage.apiUrl, { method: 'POST', path: '/_emulator/gateway/reconnect', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
      expect(write.status, origin).toBe(403);
    }
  });

  it('takes an exact origin only: no wildcard, path or bare host', () => {
    for (const corsOrigin of ['*', 'null', 'http://127.0.0.1:8080/', 'http://127.0.0.1:8080/app', '127.0.0.1:8080', 'ftp://127.0.0.1']) {
      expect(() => new Emulator(emulatorOptions({ corsOrigin })), corsOrigin).toThrow(/corsOrigin/);
    }
  });
});
