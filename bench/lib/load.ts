/**
 * Load generator child for scenario 7: runs autocannon (programmatic API) against one URL and
 * prints its summary as one JSON line. Runs in its own process so the server under test keeps a
 * core to itself. Usage: node --import tsx bench/lib/load.ts '<json options>'.
 */
import { createRequire } from 'node:module';

interface LoadOptions {
  url: string;
  connections: number;
  durationSec: number;
  headers: Record<string, string>;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
}

type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const opts = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
const result = await autocannon({
  url: opts.url,
  connections: opts.connections,
  duration: opts.durationSec,
  headers: opts.headers,
});
process.stdout.write(
  `${JSON.stringify({
    rps: result.requests.average,
    total: result.requests.total,
    latency: result.latency,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    ok: result['2xx'],
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats).map(([k, v]) => [k, v.count])),
  })}\n`,
);
