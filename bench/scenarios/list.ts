/** Every scenario, in the order `npm run bench` runs them; loaded only when it runs. */
import type { ScenarioResult } from '../lib/report.js';
import type { ScenarioContext } from './types.js';

interface Scenario {
  id: number;
  key: string;
  title: string;
  load(): Promise<{ run(ctx: ScenarioContext): Promise<ScenarioResult> }>;
}

export const SCENARIOS: Scenario[] = [
  { id: 1, key: 'interaction-overhead', title: 'Interaction overhead', load: () => import('./1-interaction-overhead.js') },
  { id: 2, key: 'autocomplete-storm', title: 'Autocomplete storm', load: () => import('./2-autocomplete-storm.js') },
  { id: 3, key: 'budget-under-load', title: 'Budget under load', load: () => import('./3-budget.js') },
  { id: 4, key: 'slow-api', title: 'Slow API', load: () => import('./4-slow-api.js') },
  { id: 5, key: 'memory', title: 'Memory', load: () => import('./5-memory.js') },
  { id: 6, key: 'key-store', title: 'Key store', load: () => import('./6-key-store.js') },
  { id: 7, key: 'sandbox', title: 'Sandbox', load: () => import('./7-sandbox.js') },
  { id: 8, key: 'startup', title: 'Start-up', load: () => import('./8-startup.js') },
  { id: 9, key: 'sharded', title: 'Sharded start-up', load: () => import('./9-sharded.js') },
  { id: 10, key: 'http-interactions', title: 'HTTP interactions', load: () => import('./10-http.js') },
  { id: 11, key: 'health-sweeps', title: 'Health sweeps at 100,000 servers', load: () => import('./11-sweeps.js') },
  { id: 12, key: 'claims-and-deploys', title: 'Exactly once and deploys', load: () => import('./12-claims.js') },
  { id: 13, key: 'tracing', title: 'Tracing', load: () => import('./13-tracing.js') },
];
