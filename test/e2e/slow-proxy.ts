import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the sandbox (TLS passes through untouched) that holds every chunk the
 * bot sends for `delayMs`: a slow feed API (a command still running when SIGTERM arrives, a
 * command that has to defer).
 */
export class SlowProxy {
  delayMs = 0;
  /** Chunks held so far (the bot made a request while slow). */
  held = 0;
  private readonly sockets = new Set<Socket>();
  private constructor(private readonly server: Server) {}

  static async start(upstreamPort: number): Promise<{ proxy: SlowProxy; port: number }> {
    const server = createServer();
    const proxy = new SlowProxy(server);
    server.on('connection', (client) => {
      const upstream = connect({ host: '127.0.0.1', port: upstreamPort });
      for (const s of [client, upstream]) {
        proxy.sockets.add(s);
        s.on('close', () => proxy.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk) => {
        if (proxy.delayMs === 0) return void upstream.write(chunk);
        proxy.held++;
        setTimeout(() => upstream.writable && upstream.write(chunk), proxy.delayMs);
      });
      client.on('end', () => upstream.end());
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return { proxy, port: typeof address === 'object' && address ? address.port : 0 };
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
