/** Figures as docs/BENCHMARKS.md prints them: three decimals below 10, thousands separated. */
export function num(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  if (abs !== 0 && abs < 0.01) return String(Number(value.toPrecision(2)));
  if (abs < 10) return String(Math.round(value * 1000) / 1000);
  if (abs < 1000) return String(Math.round(value * 10) / 10);
  return Math.round(value).toLocaleString('en-US');
}
