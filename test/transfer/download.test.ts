/** Downloading an import file: type, declared and actual size, status, time-out, encoding. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { FormatError } from '../../src/transfer/format.js';
import { downloadImportFile, fileKind, type AttachmentInfo } from '../../src/transfer/download.js';

const CDN = 'https://cdn.discord.test';
let agent: MockAgent;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  await agent.close();
});

const file = (over: Partial<AttachmentInfo> = {}): AttachmentInfo => ({ url: `${CDN}/attachments/1/2/feeds.json`, name: 'feeds.json', size: 10, contentType: 'application/json', ...over });

async function failure(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    if (error instanceof FormatError) return error.key;
    throw error;
  }
  throw new Error('no FormatError');
}

describe('fileKind', () => {
  it.each([
    [{ name: 'a.JSON', contentType: null }, 'json'],
    [{ name: 'a.csv', contentType: 'text/plain' }, 'csv'],
    [{ name: 'export', contentType: 'text/csv; charset=utf-8' }, 'csv'],
    [{ name: 'export', contentType: 'application/json' }, 'json'],
    [{ name: 'a.txt', contentType: 'text/plain' }, undefined],
  ])('%j → %s', (info, kind) => expect(fileKind(info)).toBe(kind));
});

describe('downloadImportFile', () => {
  it('downloads and decodes the text', async () => {
    agent.get(CDN).intercept({ path: '/attachments/1/2/feeds.json' }).reply(200, '{"a":"ñ"}');
    expect(await downloadImportFile(file(), { dispatcher: agent })).toEqual({ kind: 'json', text: '{"a":"ñ"}' });
  });

  it('refuses a file of another type without downloading it', async () => {
    expect(await failure(downloadImportFile(file({ name: 'a.png', contentType: 'image/png' }), { dispatcher: agent }))).toBe('transfer.file.type');
  });

  it('refuses a declared size over the limit without downloading it', async () => {
    expect(await failure(downloadImportFile(file({ size: 300 * 1024 }), { dispatcher: agent }))).toBe('transfer.file.tooLarge');
  });

  it('stops reading a body larger than the limit, whatever the declared size', async () => {
    agent.get(CDN).intercept({ path: '/attachments/1/2/feeds.json' }).reply(200, 'x'.repeat(2048));
    expect(await failure(downloadImportFile(file(), { dispatcher: agent, maxBytes: 1024 }))).toBe('transfer.file.tooLarge');
  });

  it('reports a failed download (status, unreachable, time-out)', async () => {
    agent.get(CDN).intercept({ path: '/attachments/1/2/feeds.json' }).reply(404, 'gone');
    expect(await failure(downloadImportFile(file(), { dispatcher: agent }))).toBe('transfer.file.download');
    agent.get(CDN).intercept({ path: '/attachments/1/2/feeds.json' }).replyWithError(new Error('ECONNRESET'));
    expect(await failure(downloadImportFile(file(), { dispatcher: agent }))).toBe('transfer.file.download');
    agent.get(CDN).intercept({ path: '/attachments/1/2/feeds.json' }).reply(200, '{}').delay(500);
    expect(await failure(downloadImportFile(file(), { dispatcher: agent, timeoutMs: 50 }))).toBe('transfer.file.download');
  });

  it('refuses text that is not UTF-8', async () => {
    agent.get(CDN).intercept({ path: '/attachments/1/2/feeds.json' }).reply(200, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    expect(await failure(downloadImportFile(file(), { dispatcher: agent }))).toBe('transfer.file.encoding');
  });

  it('refuses an address that is not http(s)', async () => {
    expect(await failure(downloadImportFile(file({ url: 'file:///etc/passwd' }), { dispatcher: agent }))).toBe('transfer.file.download');
  });
});
