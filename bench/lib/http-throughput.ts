/**
 * Scenario 10, part 1: the same interaction through the real bot process at saturation, over
 * HTTP and over the gateway, with the bot's CPU time over each round. Over HTTP the bench POSTs
 * bodies it signed before the round (so the sender spends nothing on Ed25519, the bot all of its
 * verification), on kept-alive connections (an undici pool), `concurrency` at a time. Over the gateway the
 * emulator dispatches each interaction as INTERACTION_CREATE and the bot acknowledges it through
 * the REST callback. Both count interactions answered with choices.
 */
import { Pool } from 'undici';
import type { DiscordEmulator, InteractionInput, InteractionSnapshot } from '@feedbot/discord-emulator';
import { isSignedByDiscord, publicKeyFromHex } from '../../src/http/signature.js';
import { cpuSeconds } from './cpu-time.js';
import { choicesIn, type BenchSigner } from './signed-post.js';

export interface Round {
  /** Interactions answered with choices (in the HTTP answer, or in the callback acknowledged in time). */
  answered: number;
  failed: number;
  wallS: number;
  /** CPU seconds the bot process used during the round. */
  cpuS: number;
}

/** Answered interactions per second of the bot's CPU time, and per second of wall time. */
export function rates(rounds: readonly Round[]): { perCpuSecond: number; perSecond: number; cpuShare: number } {
  const sum = (pick: (r: Round) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  const answered = sum((r) => r.answered);
  return { perCpuSecond: answered / sum((r) => r.cpuS), perSecond: answered / sum((r) => r.wallS), cpuShare: sum((r) => r.cpuS) / sum((r) => r.wallS) };
}

/** Runs `total` tasks with `concurrency` in flight; resolves with how many succeeded. */
async function saturate(total: number, concurrency: number, task: (i: number) => Promise<boolean>): Promise<number> {
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      if (await task(i)) ok++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return ok;
}

async function measured(pid: number, run: () => Promise<number>, total: number): Promise<Round> {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const answered = await run();
  const wallS = (performance.now() - t0) / 1000;
  return { answered, failed: total - answered, wallS, cpuS: cpuSeconds(pid) - cpu0 };
}

export interface HttpRoundOptions {
  pid: number;
  endpoint: string;
  signer: BenchSigner;
  /** The i-th interaction's raw payload (each with its own id: the bot refuses a replay). */
  payload(i: number): object;
  total: number;
  concurrency: number;
}

export async function httpRound(opts: HttpRoundOptions): Promise<Round> {
  const bodies = Array.from({ length: opts.total }, (_, i) => opts.signer.signed(opts.payload(i)));
  const url = new URL(opts.endpoint);
  // undici costs the sender less per request than node:http, so the bot gets closer to saturation.
  const pool = new Pool(url.origin, { connections: opts.concurrency });
  try {
    const run = () =>
      saturate(opts.total, opts.concurrency, async (i) => {
        const { body, headers } = bodies[i]!;
        const answer = await pool.request({ path: url.pathname, method: 'POST', headers, body });
        const text = await answer.body.text();
        return answer.statusCode === 200 && choicesIn(text) > 0;
      });
    return await measured(opts.pid, run, opts.total);
  } finally {
    await pool.close();
  }
}

export interface GatewayRoundOptions {
  pid: number;
  emulator: DiscordEmulator;
  input(i: number): InteractionInput;
  total: number;
  concurrency: number;
}

export async function gatewayRound(opts: GatewayRoundOptions): Promise<Round> {
  const waiting = new Map<string, (answered: boolean) => void>();
  const settled = (s: InteractionSnapshot) => {
    if (s.ack === null && s.state !== 'expired') return;
    const done = waiting.get(s.id);
    if (!done) return;
    waiting.delete(s.id);
    // As over HTTP: answered means acknowledged with choices.
    done(s.ack !== null && (s.choices?.length ?? 0) > 0);
  };
  opts.emulator.events.on('interaction', settled);
  try {
    const run = () =>
      saturate(opts.total, opts.concurrency, (i) => {
        // The bot answers over the network: the handle exists before its acknowledgement can.
        const handle = opts.emulator.sendInteraction(opts.input(i));
        return new Promise<boolean>((resolve) => waiting.set(handle.id, resolve));
      });
    return await measured(opts.pid, run, opts.total);
  } finally {
    opts.emulator.events.off('interaction', settled);
    // The emulator keeps every REST call; a long run would fill its record for nothing.
    opts.emulator.clearRecords();
  }
}

/**
 * What the bot's own signature check (src/http/signature.ts) costs per request on this machine,
 * in µs of CPU: run here, in the bench process (idle otherwise at that moment), on a body like
 * those of the rounds. A diagnostic: the share of the HTTP side's CPU per interaction that is
 * Ed25519 verification.
 */
export function verificationMicros(signer: BenchSigner, payload: object, iterations: number): number {
  const signed = signer.signed(payload);
  const key = publicKeyFromHex(signer.publicKeyHex);
  const body = Buffer.from(signed.body, 'utf8');
  const [signature, timestamp] = [signed.headers['x-signature-ed25519']!, signed.headers['x-signature-timestamp']!];
  for (let i = 0; i < 100; i++) isSignedByDiscord(key, signature, timestamp, body);
  const before = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    if (!isSignedByDiscord(key, signature, timestamp, body)) throw new Error('the bench signed a request the bot would refuse');
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / iterations;
}
