// Filters with predicates SQL cannot express ($expr, the bitwise operators): the SQL runs a relaxed filter
// that every matching document passes, and the whole filter is checked again in JavaScript on what it returns
// (the residual), so counts, skips and limits apply to exact matches only. The check runs in bounded slices
// between turns of the event loop, and refuses a read that would test too many documents (residualMatches).
import { queryErrors } from './errors.js';
import { type ElemPred, type FilterNode, matchesFilter } from './filter.js';
import type { Doc } from './values.js';

/** True when some predicate of the filter has no SQL form. */
export function needsResidual(node: FilterNode): boolean {
  switch (node.kind) {
    case 'expr':
      return true;
    case 'const':
      return false;
    case 'and':
    case 'or':
    case 'nor':
      return node.children.some(needsResidual);
    case 'not':
      return needsResidual(node.child);
    case 'path':
      return predNeedsResidual(node.pred);
  }
}

function predNeedsResidual(pred: ElemPred): boolean {
  if (pred.op === 'bits') return true;
  if (pred.op === 'elemMatchValue' || pred.op === 'not') return pred.preds.some(predNeedsResidual);
  if (pred.op === 'elemMatchDoc') return needsResidual(pred.filter);
  return false;
}

/**
 * A filter without such predicates that matches at least every document the given one matches: each of them
 * becomes true where it counts positively and false under an odd number of negations ($not, $nor), and the
 * rest stays exact. Run it in SQL, then the original with matchesFilter on each row.
 */
export function relaxForSql(node: FilterNode, positive = true): FilterNode {
  if (!needsResidual(node)) return node;
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind: node.kind, children: node.children.map((c) => relaxForSql(c, positive)) };
    case 'nor':
      return { kind: 'nor', children: node.children.map((c) => relaxForSql(c, !positive)) };
    case 'not':
      return { kind: 'not', child: relaxForSql(node.child, !positive) };
    default:
      return { kind: 'const', value: positive };
  }
}

/** Documents tested in one turn of the event loop at most, and their JSON text at most (bytes, about). */
export const RESIDUAL_SLICE_DOCS = 100;
export const RESIDUAL_SLICE_BYTES = 256 * 1024;
/** Documents one read may test in JavaScript before it is refused (QUERY_RESIDUAL_SCAN_LIMIT). */
export const MAX_RESIDUAL_SCANNED = 500_000;

export interface ResidualOptions {
  /** The read's maxTimeMS: checked between slices (503 QUERY_MAX_TIME_EXPIRED), as between statements. */
  maxTimeMs?: number | undefined;
  /** Overrides MAX_RESIDUAL_SCANNED (tests). */
  maxScanned?: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The texts of `batches` whose documents match the whole filter, in order, in slices: at most
 * RESIDUAL_SLICE_DOCS documents or RESIDUAL_SLICE_BYTES of text are parsed and tested before the check waits
 * for the next turn of the event loop, so a read that tests many documents on the event loop never holds
 * other requests for longer than one slice. Past `maxScanned` tested documents it answers 400, past maxTimeMS
 * 503. A consumer that has what it needs stops early by leaving its loop (the generator is then closed).
 */
export async function* residualMatches(
  filter: FilterNode,
  batches: AsyncIterable<string[]>,
  parse: (text: string) => Doc,
  options: ResidualOptions = {},
): AsyncGenerator<string[]> {
  const maxScanned = options.maxScanned ?? MAX_RESIDUAL_SCANNED;
  const end = options.maxTimeMs ? performance.now() + options.maxTimeMs : Number.POSITIVE_INFINITY;
  let scanned = 0;
  let sliceDocs = 0;
  let sliceBytes = 0;
  for await (const texts of batches) {
    let kept: string[] = [];
    for (const text of texts) {
      if (sliceDocs >= RESIDUAL_SLICE_DOCS || sliceBytes >= RESIDUAL_SLICE_BYTES) {
        if (kept.length > 0) yield kept;
        kept = [];
        await nextTurn();
        if (performance.now() >= end) throw queryErrors.maxTimeExpired(options.maxTimeMs!);
        sliceDocs = 0;
        sliceBytes = 0;
      }
      if (++scanned > maxScanned) throw queryErrors.residualScanLimit(maxScanned);
      sliceDocs += 1;
      sliceBytes += text.length;
      if (matchesFilter(filter, parse(text))) kept.push(text);
    }
    if (kept.length > 0) yield kept;
  }
}
