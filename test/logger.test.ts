/**
 * The logger is the last line of defence for secrets: interaction tokens inside Discord error URLs
 * and request bodies never reach a log line, whatever logged the error.
 */
import { DiscordAPIError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { redactTokens } from '../src/redact.js';

const TOKEN = 'aW50ZXJhY3Rpb246MTQwMDAwMDAwMDAwMDAwMDA5OTpTRUNSRVQ';

function capture() {
  const lines: string[] = [];
  const logger = createLogger({ name: 'test', level: 'trace', destination: { write: (line: string) => void lines.push(line) } });
  return { logger, lines };
}

describe('logger', () => {
  it('cuts interaction tokens out of every Discord URL shape', () => {
    expect(redactTokens(`https://discord.com/api/v10/webhooks/1200000000000000001/${TOKEN}/messages/@original`)).toBe(
      'https://discord.com/api/v10/webhooks/1200000000000000001/[redacted]/messages/@original',
    );
    expect(redactTokens(`/interactions/1400000000000000099/${TOKEN}/callback?with_response=true`)).toBe(
      '/interactions/1400000000000000099/[redacted]/callback?with_response=true',
    );
    expect(redactTokens('/channels/1/messages')).toBe('/channels/1/messages');
  });

  it("logs a DiscordAPIError without its token or request body, keeping what helps (status, code, route shape)", () => {
    const { logger, lines } = capture();
    const url = `https://discord.com/api/v10/webhooks/1200000000000000001/${TOKEN}/messages/@original`;
    const error = new DiscordAPIError({ code: 10062, message: 'Unknown interaction' }, 10062, 404, 'PATCH', url, {
      body: { content: 'private answer', token: TOKEN },
      files: undefined,
    });
    logger.error({ err: new Error('answering failed', { cause: error }) }, 'interaction');
    logger.error({ err: error }, 'interaction');
    const text = lines.join('\n');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('private answer');
    expect(text).not.toContain('requestBody');
    const logged = JSON.parse(lines[1]!) as { err: { url: string; status: number; code: number } };
    expect(logged.err).toMatchObject({ status: 404, code: 10062, url: expect.stringContaining('/webhooks/1200000000000000001/[redacted]/') });
  });
});

describe('logger: credentials in URLs', () => {
  it('a database or Redis URL quoted in an error loses its password', () => {
    const { logger, lines } = capture();
    logger.error({ err: new Error('connect failed: postgres://feedbot:s3cr3t-pw@db.internal:5432/feedbot') }, 'key store');
    expect(lines.join('\n')).not.toContain('s3cr3t-pw');
    expect(lines.join('\n')).toContain('postgres://feedbot:[redacted]@db.internal:5432/feedbot');
    expect(redactTokens('redis://:hunter2@cache:6379/0')).toBe('redis://:[redacted]@cache:6379/0');
  });
});
