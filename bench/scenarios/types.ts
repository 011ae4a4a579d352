/** What every scenario receives from the runner. */
export interface ScenarioContext {
  /** A short smoke run: small N, short windows; figures are not meaningful. */
  quick: boolean;
  /** Progress lines (stderr), so the table on stdout stays clean. */
  log(message: string): void;
}
