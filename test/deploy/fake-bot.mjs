// A stand-in for one colour's `npm start` under the stub systemctl of test/deploy/blue-green.test.ts:
// its ops listener on 127.0.0.1:<port> answers /readyz 503 until it is ready, then 200, and 503
// again from SIGTERM on, when it "drains" for a moment and exits 0, as the bot does.
//   node fake-bot.mjs <port> <ready> <events file> <name>
// <ready>: milliseconds from start until /readyz says 200; `never`; or `crash` (exits 1 before
// listening, as a bot with a bad configuration does). Writes what it does to <events file>, one
// JSON line each: { t, name, pid, event } with event listening, 503, 200, sigterm, exit or crash.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import process from 'node:process';
import { setTimeout } from 'node:timers';

const [port, ready, eventsFile, name] = process.argv.slice(2);
const DRAIN_MS = 300;
const startedAt = Date.now();
const log = (event) => appendFileSync(eventsFile, `${JSON.stringify({ t: Date.now(), name, pid: process.pid, event })}\n`);

if (ready === 'crash') {
  setTimeout(() => {
    log('crash');
    process.exit(1);
  }, 100);
} else {
  let stopping = false;
  const server = createServer((req, res) => {
    if (req.url !== '/readyz') {
      res.writeHead(404).end();
      return;
    }
    const isReady = !stopping && ready !== 'never' && Date.now() - startedAt >= Number(ready);
    const status = isReady ? 200 : 503;
    log(String(status));
    const report = isReady ? { ready: true } : { ready: false, reasons: [stopping ? 'shutting down' : 'shard 0: Connecting'] };
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(report));
  });
  server.listen(Number(port), '127.0.0.1', () => log('listening'));
  process.on('SIGTERM', () => {
    log('sigterm');
    stopping = true;
    setTimeout(() => {
      log('exit');
      process.exit(0);
    }, DRAIN_MS);
  });
}
