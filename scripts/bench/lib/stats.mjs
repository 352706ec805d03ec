/**
 * Statistics and table formatting shared by the bench scripts: percentiles over timing samples,
 * a one-line summary (median, p95, p99), ratios against the reference, and plain-text tables
 * with right-aligned numbers. Pure functions; no I/O.
 */

/** The nearest-rank percentile `p` (0–100) of an ascending array; NaN when empty. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

/** Median, p95, p99, min, max and mean of `samples` (milliseconds or anything else). */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    median: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean,
  };
}

/** A number with `digits` decimals, or `—` for a missing value. */
export function num(value, digits = 1) {
  return value === null || value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits);
}

/** `ours / reference` formatted as `0.42×`, or `—` when either side is missing. */
export function ratio(ours, reference) {
  if (ours === null || reference === null || ours === undefined || reference === undefined) return '—';
  if (Number.isNaN(ours) || Number.isNaN(reference) || reference === 0) return '—';
  return `${(ours / reference).toFixed(2)}×`;
}

/** Renders rows as a table: the first column left-aligned, the others right-aligned. */
export function table(headers, rows) {
  const cells = [headers, ...rows].map((r) => r.map((c) => String(c)));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** Reads `--name N` from argv as a number, else `fallback`. */
export function numberFlag(argv, name, fallback) {
  const at = argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name} expects a number, got ${argv[at + 1]}`);
  return value;
}

/**
 * Takes `runs` samples of each of `targets` (objects with a `name`), one of each per round, the
 * order rotating every round: a burst of load on the shared machine falls on all of them alike,
 * and no target always runs right after the same other one. `measure(target)` resolves with one
 * sample. Resolves with a Map from each target's name to its samples.
 */
export async function sampleInTurn(targets, runs, measure) {
  const samples = new Map(targets.map((t) => [t.name, []]));
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < targets.length; k++) {
      const target = targets[(i + k) % targets.length];
      samples.get(target.name).push(await measure(target));
    }
  }
  return samples;
}
