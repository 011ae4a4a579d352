/**
 * docs/monitoring/alerts.yml, the Prometheus rules shipped with the bot: promtool accepts the file
 * and passes its unit tests (docs/monitoring/alerts.test.yml); every alert carries `for`, a
 * severity, a summary, a description and a runbook link to its own section of docs/OPERATIONS.md,
 * and has a unit test where it fires and one where it stays quiet; every metric the rules read is
 * one the bot exports (its registries, not a list kept here), with labels it has.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { BotMetrics } from '../../src/ops/metrics.js';
import { HostOps } from '../../src/sharding/host-ops.js';
import { prometheusTool } from './prom-text.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const RULES = 'docs/monitoring/alerts.yml';
const RULE_TESTS = 'docs/monitoring/alerts.test.yml';
const RUNBOOK = 'docs/OPERATIONS.md';
const RUNBOOK_URL = 'https://github.com/feedbot/feedbot/blob/main/docs/OPERATIONS.md#';
const RUNBOOK_SECTION = 'Alerts: runbook';
const SEVERITIES = ['critical', 'warning', 'info'];

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/**
 * YAML's failsafe schema: every scalar stays a string (`5m`, `0`, `1+0x10`), as Prometheus reads
 * them; an empty value is null. Duplicate keys throw.
 */
type Yaml = string | null | Yaml[] | { [key: string]: Yaml };
const parseYaml = (text: string): Yaml => {
  const doc = parseDocument(text, { schema: 'failsafe', uniqueKeys: true });
  if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('; '));
  return (doc.toJS() as Yaml | undefined) ?? null;
};

// ─── What the files hold ───────────────────────────────────────────────────────────────────────

type Rec = { [key: string]: Yaml };
const isRec = (v: Yaml | undefined): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const rec = (v: Yaml | undefined, what: string): Rec => {
  if (!isRec(v)) throw new Error(`${what} is not a mapping`);
  return v;
};
const list = (v: Yaml | undefined, what: string): Yaml[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Error(`${what} is not a sequence`);
  return v;
};
const str = (v: Yaml | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

interface Rule {
  group: string;
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels: Rec;
  annotations: Rec;
}

function loadRules(): Rule[] {
  const doc = rec(parseYaml(read(RULES)), RULES);
  return list(doc.groups, 'groups').flatMap((g) => {
    const group = rec(g, 'group');
    return list(group.rules, `rules of ${str(group.name)}`).map((r): Rule => {
      const rule = rec(r, 'rule');
      return {
        group: str(group.name) ?? '',
        ...(str(rule.alert) !== undefined ? { alert: str(rule.alert)! } : {}),
        ...(str(rule.record) !== undefined ? { record: str(rule.record)! } : {}),
        expr: str(rule.expr) ?? '',
        ...(str(rule.for) !== undefined ? { for: str(rule.for)! } : {}),
        labels: isRec(rule.labels) ? rule.labels : {},
        annotations: isRec(rule.annotations) ? rule.annotations : {},
      };
    });
  });
}

interface AlertCase {
  test: string;
  evalTime: string;
  alertname: string;
  expAlerts: Rec[];
}

function loadRuleTests(): { ruleFiles: string[]; alertCases: AlertCase[]; exprs: string[] } {
  const doc = rec(parseYaml(read(RULE_TESTS)), RULE_TESTS);
  const alertCases: AlertCase[] = [];
  const exprs: string[] = [];
  for (const t of list(doc.tests, 'tests')) {
    const test = rec(t, 'test');
    for (const c of list(test.alert_rule_test, 'alert_rule_test')) {
      const kase = rec(c, 'alert_rule_test case');
      alertCases.push({
        test: str(test.name) ?? '',
        evalTime: str(kase.eval_time) ?? '',
        alertname: str(kase.alertname) ?? '',
        expAlerts: list(kase.exp_alerts, 'exp_alerts').map((a) => rec(a, 'exp_alerts item')),
      });
    }
    for (const c of list(test.promql_expr_test, 'promql_expr_test')) exprs.push(str(rec(c, 'promql_expr_test case').expr) ?? '');
  }
  return { ruleFiles: list(doc.rule_files, 'rule_files').map((f) => str(f) ?? ''), alertCases, exprs };
}

// ─── PromQL: the metrics and labels an expression reads ────────────────────────────────────────

const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'bool', 'inf', 'nan']);
const STRINGS = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g;
/** An identifier, whole (not followed by a name character), not a function call. */
const IDENTIFIER = /(?<![\w.:])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g;
const SELECTOR = /(?<![\w.:])([a-zA-Z_:][\w:]*)\s*\{([^}]*)\}/g;

/** Metric names (and recording-rule names) an expression reads. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(STRINGS, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(IDENTIFIER)].map((m) => m[1]!).filter((name) => !KEYWORDS.has(name.toLowerCase()));
}

/** Each `name{…}` selector of an expression: the metric and its matchers' label names and values. */
function selectors(expr: string): { name: string; matchers: { label: string; op: string; value: string }[] }[] {
  return [...expr.matchAll(SELECTOR)].map((m) => ({
    name: m[1]!,
    matchers: [...m[2]!.matchAll(/([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map((x) => ({ label: x[1]!, op: x[2]!, value: x[3]! })),
  }));
}

/** Label names of every `by (…)` of an expression: what a recording rule keeps. */
const byLabels = (expr: string) => [...expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((l) => l.trim()).filter(Boolean));

/** Series names the bot exports (a histogram's `_bucket`, `_sum`, `_count`) with each one's label names. */
async function exportedSeries(): Promise<Map<string, string[]>> {
  const bot = new BotMetrics();
  // The manager of `npm run start:sharded` serves its own metrics beside its shards' (feedbot_shard_process_*).
  const host = new HostOps({ ids: [0], shard: () => undefined, stopping: () => false });
  const series = new Map<string, string[]>();
  for (const registry of [bot.registry, host.registry]) {
    const json = await registry.getMetricsAsJSON();
    const declared = new Map(registry.getMetricsAsArray().map((m) => [m.name, (m as unknown as { labelNames?: readonly string[] }).labelNames ?? []]));
    for (const metric of json) {
      const labels = [...(declared.get(metric.name) ?? []), ...metric.values.flatMap((v) => Object.keys(v.labels))];
      // prom-client types `type` as an enum whose values are these strings.
      const type = String(metric.type);
      const names =
        type === 'histogram'
          ? [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`]
          : type === 'summary'
            ? [metric.name, `${metric.name}_sum`, `${metric.name}_count`]
            : [metric.name];
      for (const name of names) series.set(name, [...new Set([...(series.get(name) ?? []), ...labels, ...(name.endsWith('_bucket') ? ['le'] : [])])]);
    }
  }
  return series;
}

// ─── The runbook's anchors ─────────────────────────────────────────────────────────────────────

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2… */
export function headingAnchors(markdown: string): { anchor: string; level: number; text: string }[] {
  const seen = new Map<string, number>();
  const out: { anchor: string; level: number; text: string }[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (f[1] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[2]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.push({ anchor: count === 0 ? base : `${base}-${count}`, level: h[1]!.length, text });
  }
  return out;
}

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

// ─── Tests ─────────────────────────────────────────────────────────────────────────────────────

describe('GitHub heading anchors', () => {
  it('match GitHub for the headings of this repository', () => {
    const anchors = headingAnchors('# Operating feedbot\n## Metrics: health, readiness and Prometheus\n### `npm run start:sharded`: rolling restart\n```sh\n# not a heading\n```\n## Notes\n## Notes\n### FeedbotDown');
    expect(anchors.map((a) => a.anchor)).toEqual([
      'operating-feedbot',
      'metrics-health-readiness-and-prometheus',
      'npm-run-startsharded-rolling-restart',
      'notes',
      'notes-1',
      'feedbotdown',
    ]);
  });
});

describe('PromQL names', () => {
  it('finds metrics, not functions, keywords, labels or durations', () => {
    expect(
      metricNames(
        'sum by (job, instance) (rate(a_total{job="feedbot", x=~"y|z"}[5m])) / ignoring(le) b:c:rate5m > 0.5 and on (job) predict_linear(d_bytes[6h], 86400) > 256 * 1e6 unless e offset 1h',
      ),
    ).toEqual(['a_total', 'b:c:rate5m', 'd_bytes', 'e']);
  });
});

describe('docs/monitoring/alerts.yml', () => {
  const rules = loadRules();
  const alerts = rules.filter((r) => r.alert !== undefined);
  const records = rules.filter((r) => r.record !== undefined);
  const ruleTests = loadRuleTests();
  const promtool = prometheusTool('promtool', 'promtool check rules / test rules on docs/monitoring/alerts.yml');

  it.skipIf(promtool.skip)('passes `promtool check rules`', async () => {
    const result = await run(promtool.path(), ['check', 'rules', RULES]);
    expect(result.output).toContain('SUCCESS');
    expect(result.code, result.output).toBe(0);
  });

  it.skipIf(promtool.skip)('passes its unit tests, `promtool test rules`', async () => {
    const result = await run(promtool.path(), ['test', 'rules', RULE_TESTS]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('SUCCESS');
  });

  it('is read whole: recording rules in feedbot.rules, alerts in feedbot.alerts', () => {
    const raw = read(RULES);
    expect(alerts.length).toBe(raw.match(/^\s*- alert:/gm)!.length);
    expect(records.length).toBe(raw.match(/^\s*- record:/gm)!.length);
    expect(new Set(records.map((r) => r.group))).toEqual(new Set(['feedbot.rules']));
    expect(new Set(alerts.map((r) => r.group))).toEqual(new Set(['feedbot.alerts']));
    expect(alerts.length).toBeGreaterThanOrEqual(15);
    for (const r of rules) expect(r.expr, `${r.alert ?? r.record} has an expr`).not.toBe('');
    expect(new Set(alerts.map((a) => a.alert)).size).toBe(alerts.length);
    expect(new Set(records.map((r) => r.record)).size).toBe(records.length);
  });

  it('names recording rules level:metric:operations', () => {
    for (const r of records) expect(r.record).toMatch(/^[a-z_]+:[a-z0-9_]+:[a-z0-9_]+$/);
    // Each one is used by an alert, or is there for the dashboard (all of them feed one today).
    const used = new Set(alerts.flatMap((a) => metricNames(a.expr)));
    const readByRecords = new Set(records.flatMap((r) => metricNames(r.expr)));
    for (const r of records) expect(used.has(r.record!) || readByRecords.has(r.record!), `${r.record} is used`).toBe(true);
  });

  const anchors = headingAnchors(read(RUNBOOK));

  describe.each(alerts.map((a) => [a.alert!, a] as const))('%s', (name, alert) => {
    it('is named Feedbot…, waits with `for:` and has a severity', () => {
      expect(name).toMatch(/^Feedbot[A-Z][A-Za-z0-9]*$/);
      expect(alert.for, 'for').toMatch(/^\d+[smhd]$/);
      expect(SEVERITIES).toContain(alert.labels.severity);
    });

    it('has a summary, a description and a runbook link to its own section of docs/OPERATIONS.md', () => {
      expect(str(alert.annotations.summary)?.trim()).toBeTruthy();
      expect(str(alert.annotations.description)?.trim()).toBeTruthy();
      const url = str(alert.annotations.runbook_url) ?? '';
      expect(url.startsWith(RUNBOOK_URL), url).toBe(true);
      const anchor = url.slice(RUNBOOK_URL.length);
      expect(anchor).toBe(name.toLowerCase());
      expect(anchors.map((a) => a.anchor)).toContain(anchor);
      // The heading is the alert's name, a subsection of the runbook.
      const at = anchors.findIndex((a) => a.anchor === anchor);
      expect(anchors[at]).toMatchObject({ level: 3, text: name });
      const section = anchors.slice(0, at).reverse().find((a) => a.level <= 2);
      expect(section?.text).toBe(RUNBOOK_SECTION);
    });

    it('has a unit test where it fires (labels and annotations asserted) and one where it stays quiet', () => {
      const cases = ruleTests.alertCases.filter((c) => c.alertname === name);
      const firing = cases.filter((c) => c.expAlerts.length > 0);
      expect(firing.length, `a firing case for ${name}`).toBeGreaterThan(0);
      expect(cases.filter((c) => c.expAlerts.length === 0).length, `a silent case for ${name}`).toBeGreaterThan(0);
      for (const c of firing) {
        for (const exp of c.expAlerts) {
          const labels = rec(exp.exp_labels, `exp_labels (${c.test} at ${c.evalTime})`);
          const annotations = rec(exp.exp_annotations, `exp_annotations (${c.test} at ${c.evalTime})`);
          expect(labels.severity).toBe(alert.labels.severity);
          expect(Object.keys(annotations).sort()).toEqual(['description', 'runbook_url', 'summary']);
        }
      }
    });
  });

  it('has a runbook section for each alert and none for an alert that does not exist', () => {
    const start = anchors.findIndex((a) => a.level === 2 && a.text === RUNBOOK_SECTION);
    expect(start, `## ${RUNBOOK_SECTION} in ${RUNBOOK}`).toBeGreaterThanOrEqual(0);
    const end = anchors.findIndex((a, n) => n > start && a.level <= 2);
    const subsections = anchors.slice(start + 1, end === -1 ? undefined : end).filter((a) => a.level === 3);
    expect(subsections.map((s) => s.text).sort()).toEqual(alerts.map((a) => a.alert!).sort());
  });

  it('has unit tests for alerts that exist and for every recording rule', () => {
    expect(ruleTests.ruleFiles).toEqual(['alerts.yml']);
    const names = new Set(alerts.map((a) => a.alert));
    for (const c of ruleTests.alertCases) expect(names.has(c.alertname), `${c.test}: ${c.alertname} is an alert`).toBe(true);
    const tested = new Set(ruleTests.exprs.flatMap(metricNames));
    for (const r of records) expect(tested.has(r.record!), `promql_expr_test of ${r.record}`).toBe(true);
  });

  it('reads only metrics the bot exports, with labels they have, from job="feedbot"', async () => {
    const exported = await exportedSeries();
    const recorded = new Map(records.map((r) => [r.record!, byLabels(r.expr)]));
    // Added by Prometheus (job, instance) and by the manager of `npm run start:sharded` (shard_process).
    const added = ['job', 'instance', 'shard_process'];
    const problems: string[] = [];
    for (const rule of rules) {
      const what = rule.alert ?? rule.record!;
      for (const name of metricNames(rule.expr)) {
        if (name.includes(':')) {
          if (!recorded.has(name)) problems.push(`${what}: ${name} is not a recording rule of this file`);
        } else if (name !== 'up' && !exported.has(name)) problems.push(`${what}: ${name} is not exported by the bot`);
      }
      const raw = metricNames(rule.expr).filter((n) => !n.includes(':'));
      const selected = selectors(rule.expr).filter((s) => !s.name.includes(':'));
      if (selected.length !== raw.length) problems.push(`${what}: every metric is read through a selector with job="feedbot"`);
      for (const s of selectors(rule.expr)) {
        if (!s.name.includes(':') && !s.matchers.some((m) => m.label === 'job' && m.op === '=' && m.value === 'feedbot')) problems.push(`${what}: ${s.name} without job="feedbot"`);
        const known = s.name.includes(':') ? (recorded.get(s.name) ?? []) : s.name === 'up' ? [] : (exported.get(s.name) ?? []);
        for (const m of s.matchers) if (!known.includes(m.label) && !added.includes(m.label)) problems.push(`${what}: ${s.name} has no label ${m.label}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
