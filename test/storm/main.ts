/**
 * `npm run storm -- --seed N --minutes M [--shape gateway|shards|replicas|same-shard|all]
 * [--store sqlite|postgres|redis|all] [--json FILE]`, or `--ci` for the fixed seeds of
 * ci-seeds.json. Prints each storm's figures, every violation with the one-line command that
 * replays it, and exits 1 when any invariant was broken.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { missingNginx, serverBinariesMissing } from '@feedbot/playground';
import { SHAPES, STORES, replayCommand, type Shape, type Store } from './plan.js';
import { runStorm, type StormReport } from './run.js';

const Args = z
  .object({
    seed: z.coerce.number().int().min(0).max(2 ** 32 - 1).optional(),
    minutes: z.coerce.number().positive().max(24 * 60).default(1),
    shape: z.enum([...SHAPES, 'all']).default('gateway'),
    store: z.enum([...STORES, 'all']).default('sqlite'),
    json: z.string().optional(),
    ci: z.boolean().default(false),
  })
  .strict();

const CiSeeds = z.array(z.object({ seed: z.number().int(), minutes: z.number().positive(), shape: z.enum(SHAPES), store: z.enum(STORES), why: z.string() }));

function parseArgs(argv: string[]): z.infer<typeof Args> {
  const raw: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const name = arg.slice(2);
    if (name === 'ci') raw.ci = true;
    else raw[name] = argv[++i];
  }
  const parsed = Args.safeParse(raw);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}

async function main(): Promise<number> {
  let args: z.infer<typeof Args>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`storm: ${(error as Error).message}`);
    return 2;
  }
  const runs: { seed: number; minutes: number; shape: Shape; store: Store }[] = [];
  if (args.ci) {
    runs.push(...CiSeeds.parse(JSON.parse(readFileSync(new URL('./ci-seeds.json', import.meta.url), 'utf8'))));
  } else {
    const seed = args.seed ?? Math.floor(Math.random() * 2 ** 32);
    for (const shape of args.shape === 'all' ? SHAPES : [args.shape]) for (const store of args.store === 'all' ? STORES : [args.store]) runs.push({ seed, minutes: args.minutes, shape, store });
  }
  const reports: StormReport[] = [];
  let broken = 0;
  for (const run of runs) {
    const missing =
      (run.store === 'sqlite' ? undefined : serverBinariesMissing(run.store)) ??
      (run.shape === 'replicas' ? (serverBinariesMissing('redis') ?? missingNginx()) : undefined);
    if (missing) {
      if (process.env.CI) throw new Error(`storm ${replayCommand(run)}: ${missing}`);
      console.log(`skipped ${replayCommand(run)}: ${missing}`);
      continue;
    }
    const report = await runStorm({ ...run, log: (line) => console.log(`  ${line}`) });
    reports.push(report);
    console.log(summary(report));
    if (report.violations.length > 0) {
      broken++;
      console.log(`${report.violations.length} violation(s) with seed ${run.seed}; replay: ${report.replay}`);
    }
  }
  if (args.json) writeFileSync(args.json, JSON.stringify(reports, null, 1));
  console.log(`${reports.length} storm(s), ${reports.reduce((n, r) => n + r.interactions, 0)} interactions, ${broken} with violations`);
  return broken > 0 ? 1 : 0;
}

function summary(r: StormReport): string {
  const faults = Object.entries(r.faults).map(([k, n]) => `${k} ${n}`).join(', ');
  return [
    `storm seed ${r.plan.seed} · ${r.plan.shape} · ${r.plan.store} · ${r.plan.minutes} min: ${r.durationS} s, ${r.interactions} interactions, ${r.undelivered} undelivered (${r.creates} creates, ${r.deletes} deletes, ${r.forgets} forgets, digests ${r.digests.posted} posted of ${r.digests.set} set due)`,
    `  faults: ${faults || 'none'}${r.plan.storeDownAtStartS ? ` (store down ${r.plan.storeDownAtStartS} s at start)` : ''}`,
    `  injected: feed API ${JSON.stringify(r.injected.feedApi)}, Discord ${JSON.stringify(r.injected.discord)}`,
    `  recovery: ${r.recoveryS === null ? 'not within the bound' : `${r.recoveryS} s`}; processes: ${r.processes.map((p) => `${p.name} ×${p.starts} ${p.firstRssMB}→${p.lastRssMB} MB, ${p.firstHandles}→${p.lastHandles} handles`).join('; ')}`,
    `  violations: ${r.violations.length}`,
  ].join('\n');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
