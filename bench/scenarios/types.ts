/** What every scenario receives from the runner. */
export interface ScenarioContext {
  /** A short smoke run: small N, short windows; figures are not meaningful. */
  quick: boolean;
  /** Progress lines (stderr), so the table on stdout stays clean. */
  log(message: string): void;
  /** Sizes that replace a scenario's own (tests run tiny versions); names are per scenario. */
  overrides?: Record<string, number>;
}
