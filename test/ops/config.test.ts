/** METRICS_PORT and METRICS_HOST: off by default, loopback unless told otherwise, clear refusals. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigSchema, loadConfig } from '../../src/config.js';

const valid = {
  DISCORD_TOKEN: 'MTIwMDAwMDAwMDAwMDAwMDAwMQ.abc.def',
  FEED_API_URL: 'https://api.example.com/v1/',
  KEY_ENCRYPTION_SECRET: Buffer.alloc(32, 1).toString('base64'),
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...valid, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('metrics configuration', () => {
  it('is off by default and binds to loopback', () => {
    const c = loadConfig(valid);
    expect(c.METRICS_PORT).toBeUndefined();
    expect(c.METRICS_HOST).toBe('127.0.0.1');
    expect(loadConfig({ ...valid, METRICS_PORT: '', METRICS_HOST: ' ' }).METRICS_PORT).toBeUndefined();
  });

  it('takes a port and an IPv4, IPv6 or host name address', () => {
    for (const [port, host] of [
      ['9464', '0.0.0.0'],
      ['1', '::1'],
      ['65535', '::'],
      [' 8080 ', 'localhost'],
      ['9100', 'metrics.internal.example'],
    ] as const) {
      const c = loadConfig({ ...valid, METRICS_PORT: port, METRICS_HOST: host });
      expect(c.METRICS_PORT).toBe(Number(port));
      expect(c.METRICS_HOST).toBe(host);
    }
  });

  it.each(['0', '65536', '-1', '80.5', '1e3', '0x50', '9464abc', 'ninety'])('refuses METRICS_PORT=%s with the range', (port) => {
    expect(problems({ METRICS_PORT: port })).toEqual(['METRICS_PORT must be a port number from 1 to 65535, e.g. 9464']);
  });

  it.each(['http://127.0.0.1', '127.0.0.1:9464', '[::1]', 'host name', 'bad_host', '-lead.example', 'a'.repeat(64)])(
    'refuses METRICS_HOST=%s with an example',
    (host) => {
      expect(problems({ METRICS_HOST: host })).toEqual([
        'METRICS_HOST must be an IP address or a host name, e.g. 127.0.0.1 (the default), ::1, or 0.0.0.0 for every interface',
      ]);
    },
  );
});

describe('documented variables', () => {
  const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

  it('every variable the bot reads has a line in .env.example and a row in the README table', () => {
    const example = read('.env.example');
    const readme = read('README.md');
    for (const name of Object.keys(ConfigSchema.shape)) {
      expect(example, `.env.example: ${name}`).toMatch(new RegExp(`^${name}=`, 'm'));
      expect(readme, `README: ${name}`).toMatch(new RegExp(`^\\| \`${name}\` \\|`, 'm'));
    }
  });
});
