/**
 * discord.js uploads files from a process that also loaded undici 7 (the feed API client's): the
 * REST client the bot builds must send multipart bodies that reach Discord intact.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import 'undici';
import { Routes } from 'discord.js';
import { afterEach, expect, it } from 'vitest';
import { createDiscordClient } from '../../src/bot/discord-client.js';

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

it('sends a message with a file as multipart/form-data', async () => {
  const received: { contentType: string | undefined; body: string }[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      received.push({ contentType: req.headers['content-type'], body });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: '1' }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = createDiscordClient({ apiUrl: `http://127.0.0.1:${port}/api` });
  client.rest.setToken('test-token');
  try {
    await client.rest.post(Routes.channelMessages('123'), {
      body: { content: 'export' },
      files: [{ name: 'feeds.json', data: Buffer.from('{"formato":1}'), contentType: 'application/json' }],
    });
  } finally {
    await client.destroy();
  }
  expect(received).toHaveLength(1);
  expect(received[0]!.contentType).toMatch(/^multipart\/form-data; boundary=/);
  expect(received[0]!.body).toContain('filename="feeds.json"');
  expect(received[0]!.body).toContain('{"formato":1}');
  expect(received[0]!.body).toContain('"content":"export"');
});
