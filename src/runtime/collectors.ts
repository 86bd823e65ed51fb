// The collector calculations of running totals and leaderboards: pure functions of the old values and one event.
import type { AttributeValues } from './event-attributes.js';
import type { Collector } from './runtime-config.js';

/** A record's or entry's values, one per collector, in collector order; undefined: no value yet. */
export type CollectedValues = unknown[];

export interface CollectResult {
  next: CollectedValues;
  /** A value other than SUPPLEMENTAL changed (the ranking value, for leaderboards). */
  rankingChanged: boolean;
  /** Anything changed, or the record came into being: it must be written. */
  changed: boolean;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function compare(a: unknown, b: unknown): number | undefined {
  if (isNumber(a) && isNumber(b)) return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

/** Whether the event's value passes a collector's filter; values of different types never pass an ordering. */
export function passesFilter(filter: Collector['filter'], value: unknown): boolean {
  if (!filter) return true;
  if (filter.operator === 'EQ') return sameValue(value, filter.value);
  if (filter.operator === 'NE') return !sameValue(value, filter.value);
  const c = compare(value, filter.value);
  if (c === undefined) return false;
  switch (filter.operator) {
    case 'GT':
      return c > 0;
    case 'GE':
      return c >= 0;
    case 'LT':
      return c < 0;
    default:
      return c <= 0;
  }
}

/** One calculation: the new value from the old one and the event's; the old one when the event brings nothing. */
export function calculate(calculation: Collector['calculation'], old: unknown, value: unknown): unknown {
  const base = isNumber(old) ? old : undefined;
  switch (calculation) {
    case 'COUNT':
      return (base ?? 0) + 1;
    case 'SUM':
      return isNumber(value) ? (base ?? 0) + value : old;
    case 'MAX':
      return isNumber(value) ? (base === undefined ? value : Math.max(base, value)) : old;
    case 'MIN':
      return isNumber(value) ? (base === undefined ? value : Math.min(base, value)) : old;
    default:
      // LAST and SUPPLEMENTAL take the event's value as it is.
      return value === undefined || value === null ? old : value;
  }
}

/**
 * Applies one event to a record's values. `feeds(i)` says whether collector i takes this event (a leaderboard's
 * fields may come from running totals of other events). SUPPLEMENTAL values are written only when another value
 * of the record changes; a record that no collector takes is not created.
 */
export function collect(
  prev: CollectedValues | undefined,
  collectors: readonly Collector[],
  event: AttributeValues,
  feeds: (i: number) => boolean = () => true,
): CollectResult {
  const next: CollectedValues = collectors.map((_, i) => prev?.[i]);
  const takes = (c: Collector, i: number) =>
    feeds(i) && event.has(c.attribute) && passesFilter(c.filter, event.get(c.attribute));
  let rankingChanged = false;
  collectors.forEach((c, i) => {
    if (c.calculation === 'SUPPLEMENTAL' || !takes(c, i)) return;
    const value = calculate(c.calculation, next[i], event.get(c.attribute));
    if (!sameValue(value, next[i])) rankingChanged = true;
    next[i] = value;
  });
  // With no other value fed by this event (all SUPPLEMENTAL), the first event alone sets them.
  const rankingFed = collectors.some((c, i) => c.calculation !== 'SUPPLEMENTAL' && feeds(i));
  if (rankingChanged || (prev === undefined && !rankingFed)) {
    collectors.forEach((c, i) => {
      if (c.calculation === 'SUPPLEMENTAL' && takes(c, i))
        next[i] = calculate('LAST', next[i], event.get(c.attribute));
    });
  }
  const changed =
    prev === undefined ? next.some((v) => v !== undefined) : next.some((v, i) => !sameValue(v, prev[i]));
  return { next, rankingChanged, changed };
}
