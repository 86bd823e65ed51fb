// Filters with predicates SQL cannot express ($expr, the bitwise operators): the SQL runs a relaxed filter
// that every matching document passes, and the whole filter is checked again in JavaScript on what it returns
// (the residual), so counts, skips and limits apply to exact matches only.
import type { ElemPred, FilterNode } from './filter.js';

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
