/**
 * The shape of bench/results.json and the table `npm run bench` prints. Every figure sits next
 * to the baseline it was measured against in the same run, and their ratio.
 */

export interface Metric {
  name: string;
  unit: string;
  /** feedbot's figure. */
  value: number | null;
  /** The same figure for the scenario's baseline, measured in the same run. */
  baseline?: number | null;
  /** value ÷ baseline. */
  ratio?: number | null;
  /** The target, in words, e.g. "≤ 1.5× baseline". */
  target?: string;
  /** Whether the target was met; null when the figure could not be taken. */
  met?: boolean | null;
}

export interface ScenarioResult {
  id: number;
  key: string;
  title: string;
  /** What feedbot is compared with. */
  baseline: string;
  params: Record<string, unknown>;
  metrics: Metric[];
  /** Curves, distributions and counts behind the metrics. */
  details: Record<string, unknown>;
  notes: string[];
  durationMs: number;
  /** Set when the scenario could not run; its metrics are then empty. */
  error?: string;
}

export interface Machine {
  cpuModel: string;
  cores: number;
  totalMemoryMb: number;
  platform: string;
  kernel: string;
  node: string;
  v8: string;
}

/** The checkout a run measured; absent in results written before it was recorded, or without git. */
export interface GitState {
  /** `git rev-parse --short HEAD`. */
  commit: string;
  /** Whether tracked or untracked files differed from that commit when the run started. */
  dirty: boolean;
}

export interface BenchResults {
  generatedAt: string;
  quick: boolean;
  machine: Machine;
  git?: GitState;
  durationMs: number;
  scenarios: ScenarioResult[];
}

function fmt(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && abs < 0.01) return String(Number(value.toPrecision(2)));
  if (abs < 10) return String(Math.round(value * 1000) / 1000);
  if (abs < 1000) return String(Math.round(value * 10) / 10);
  return String(Math.round(value));
}

/** A plain-text table, one row per metric. */
export function formatTable(scenarios: readonly ScenarioResult[]): string {
  const header = ['#', 'scenario', 'metric', 'feedbot', 'baseline', 'ratio', 'target', 'met'];
  const rows: string[][] = [];
  for (const s of scenarios) {
    if (s.error) {
      rows.push([String(s.id), s.key, `ERROR: ${(s.error.split('\n')[0] ?? '').slice(0, 100)}`, '', '', '', '', '✗']);
      continue;
    }
    for (const m of s.metrics) {
      rows.push([
        String(s.id),
        s.key,
        `${m.name} (${m.unit})`,
        fmt(m.value),
        fmt(m.baseline),
        m.ratio === null || m.ratio === undefined ? '–' : `${fmt(m.ratio)}×`,
        m.target ?? '',
        m.met === undefined ? '' : m.met === null ? '?' : m.met ? '✓' : '✗',
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i >= 3 && i <= 5 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
