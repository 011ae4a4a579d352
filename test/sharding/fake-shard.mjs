// A stand-in for the bot's shard process under the real HostManager (test/sharding/roll.test.ts):
// it speaks discord.js's sharding IPC (`{ _ready: true }` once "logged in") and answers the
// manager's readiness question, drains on SIGTERM, and writes what it does to
// $FAKE_SHARD_DIR/events.jsonl. $FAKE_SHARD_DIR/control.json, read at start, says how it behaves:
// { readyMs, drainMs, fail: [shard ids that exit 1 before READY], neverReady: [shard ids that never get READY] }.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { setInterval, setTimeout } from 'node:timers';

const dir = process.env.FAKE_SHARD_DIR;
const shard = Number(process.env.SHARDS);
const control = JSON.parse(readFileSync(join(dir, 'control.json'), 'utf8'));
const log = (event) => appendFileSync(join(dir, 'events.jsonl'), `${JSON.stringify({ t: Date.now(), pid: process.pid, shard, event })}\n`);

let ready = false;
log('start');
setTimeout(() => {
  if (control.fail?.includes(shard)) {
    log('fail');
    process.exit(1);
  }
  if (control.neverReady?.includes(shard)) return;
  ready = true;
  log('ready');
  process.send({ _ready: true });
}, control.readyMs ?? 50);

process.on('message', (message) => {
  if (message?.feedbotOps !== 1 || message.ask !== 'readiness') return;
  const value = ready
    ? { ready: true, shards: { [shard]: 'Ready' }, keyStore: 'ok', problems: [] }
    : { ready: false, shards: { [shard]: 'Connecting' }, keyStore: 'ok', problems: [`gateway shard ${shard} is Connecting`] };
  process.send({ feedbotOps: 1, id: message.id, value });
});

process.on('SIGTERM', () => {
  log('sigterm');
  setTimeout(() => {
    log('exit');
    process.exit(0);
  }, control.drainMs ?? 50);
});
process.on('disconnect', () => process.exit(0));
setInterval(() => {}, 60_000);
