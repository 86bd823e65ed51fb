// The nosql bench's comparisons: each Playbase figure against its bare baseline from the same run, as
// Playbase / bare ratios of throughput and latency, and the table printed at the end of the run.
import type { Figure } from './lib.js';

/** One case measured on both servers with the same bodies and connections. */
export interface Ratio {
  case: string;
  /** The figures' names in the same store's `figures`. */
  playbase: string;
  bare: string;
  connections: number;
  /** Playbase / bare: above 1 Playbase serves more; the issue-23 goal is at least 0.5. */
  requestsPerSecond: number | null;
  /** Playbase / bare: above 1 Playbase is slower. */
  p50Ms: number | null;
  p99Ms: number | null;
}

const ratioOf = (a: number, b: number): number | null => (b > 0 ? Number((a / b).toFixed(3)) : null);

export function compare(caseName: string, playbase: Figure, bare: Figure, connections: number): Ratio {
  return {
    case: caseName,
    playbase: playbase.name,
    bare: bare.name,
    connections,
    requestsPerSecond: ratioOf(playbase.requestsPerSecond, bare.requestsPerSecond),
    p50Ms: ratioOf(playbase.p50Ms, bare.p50Ms),
    p99Ms: ratioOf(playbase.p99Ms, bare.p99Ms),
  };
}

export interface StoreResult {
  store: string;
  figures: Figure[];
  ratios: Ratio[];
}

const fig = (f: Figure | undefined) =>
  f ? `${f.requestsPerSecond} (${f.p50Ms}/${f.p99Ms})${f.non2xx + f.errors > 0 ? ' !errors' : ''}` : '-';

/** A plain-text table, one line per store and case: both figures (req/s, p50/p99 ms) and the ratios. */
export function printRatios(results: StoreResult[]): void {
  const head = [
    'store',
    'case',
    'conns',
    'Playbase req/s (p50/p99 ms)',
    'bare req/s (p50/p99 ms)',
    'req/s ratio',
    'p99 ratio',
  ];
  const rows = [head];
  for (const result of results) {
    const byName = new Map(result.figures.map((f) => [f.name, f]));
    for (const r of result.ratios) {
      rows.push([
        result.store,
        r.case,
        String(r.connections),
        fig(byName.get(r.playbase)),
        fig(byName.get(r.bare)),
        String(r.requestsPerSecond ?? '-'),
        String(r.p99Ms ?? '-'),
      ]);
    }
  }
  const widths = head.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  console.log('\nPlaybase against bare baselines (ratio = Playbase / bare; same run, same bodies):');
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | '));
}
