import { describe, expect, it } from 'vitest';
import { extractApiMessage, sanitizeText, scrubSecret } from '../../src/api/api-message.js';
import { backoffMs, shouldRetry, type AttemptOutcome, type Method } from '../../src/api/retry-policy.js';

describe('retry policy', () => {
  const cases: Array<[Method, AttemptOutcome, boolean]> = [
    ['GET', { kind: 'status', status: 500 }, true],
    ['GET', { kind: 'status', status: 504 }, true],
    ['GET', { kind: 'status', status: 501 }, false],
    ['GET', { kind: 'status', status: 429 }, false],
    ['GET', { kind: 'status', status: 404 }, false],
    ['DELETE', { kind: 'status', status: 503 }, true],
    ['DELETE', { kind: 'timeout' }, true],
    ['GET', { kind: 'timeout' }, true],
    ['POST', { kind: 'timeout' }, false],
    ['POST', { kind: 'status', status: 500 }, false],
    ['POST', { kind: 'status', status: 429 }, false],
    ['POST', { kind: 'connection', systemCode: 'ECONNREFUSED' }, true],
    ['POST', { kind: 'connection', systemCode: 'ENOTFOUND' }, true],
    ['POST', { kind: 'connection', systemCode: 'UND_ERR_CONNECT_TIMEOUT' }, true],
    ['POST', { kind: 'connection', systemCode: 'ECONNRESET' }, false],
    ['POST', { kind: 'connection', systemCode: 'UND_ERR_SOCKET' }, false],
    ['POST', { kind: 'connection' }, false],
    ['GET', { kind: 'connection', systemCode: 'ECONNRESET' }, true],
    ['GET', { kind: 'connection', systemCode: 'UND_ERR_SOCKET' }, true],
    ['GET', { kind: 'connection', systemCode: 'CERT_HAS_EXPIRED' }, false],
    ['GET', { kind: 'connection' }, false],
  ];
  it.each(cases)('%s %j → %s', (method, outcome, expected) => {
    expect(shouldRetry(method, outcome)).toBe(expected);
  });

  it('full jitter: within [0, min(cap, base·2^(n-1)))', () => {
    expect(backoffMs(1, 200, 2000, () => 0)).toBe(0);
    expect(backoffMs(1, 200, 2000, () => 0.5)).toBe(100);
    expect(backoffMs(2, 200, 2000, () => 0.999)).toBe(399);
    expect(backoffMs(10, 200, 2000, () => 0.999)).toBe(1998);
    expect(backoffMs(3, 200, 2000, () => 7)).toBe(800); // a bad random source cannot exceed the ceiling
  });
});

describe('api message helpers', () => {
  it('sanitizeText strips controls and bidi overrides, collapses space, truncates', () => {
    expect(sanitizeText('a\u0000b\u202Ec\r\n  d')).toBe('a b c d');
    expect(sanitizeText(' \n\t ')).toBeUndefined();
    expect(sanitizeText('y'.repeat(10), 5)).toBe('yyyy…');
  });

  it('extractApiMessage prefers the first known place', () => {
    expect(extractApiMessage({ mensaje: 'es', message: 'en' })).toBe('es');
    expect(extractApiMessage({ error: { mensaje: 'inner' }, detail: 'later' })).toBe('inner');
    expect(extractApiMessage({ error: 42, detail: 'd' })).toBe('d');
    expect(extractApiMessage(null)).toBeUndefined();
    expect(extractApiMessage(17)).toBeUndefined();
  });

  it('scrubSecret replaces the secret in nested strings and keys, leaving the rest', () => {
    const s = 'sekret-123';
    expect(scrubSecret({ a: [`x${s}y`, 1, null], [s]: true, n: { m: s } }, s)).toEqual({
      a: ['x[redacted]y', 1, null],
      '[redacted]': true,
      n: { m: '[redacted]' },
    });
    expect(scrubSecret('plain', s)).toBe('plain');
  });
});
