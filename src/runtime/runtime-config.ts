// A stage's game configuration compiled for the runtime: per event, the running totals and leaderboards it feeds.
import { createHash } from 'node:crypto';
import { ATTRIBUTE_REF, EVENT_REF, RUNNING_TOTAL_REF } from '../config/config-build.js';
import type {
  Calculation,
  ConfigDoc,
  EventAttribute,
  FilterOperator,
  Leaderboard,
  RunningTotal,
} from '../config/config-types.js';
import type { CloudScript } from '../types/config.js';

export type ResetFrequency = Leaderboard['resetFrequency'];

export interface Collector {
  /** The attribute's short code: the value's name in records and entries. */
  attribute: string;
  calculation: Calculation;
  filter?: { operator: FilterOperator; value: unknown } | undefined;
}

export interface RunningTotalPlan {
  shortCode: string;
  collection: string;
  event: string;
  groupBy: string[];
  collectors: Collector[];
}

export interface LeaderboardField extends Collector {
  runningTotal: string;
  /** The event of the field's running total: only that event changes the field. */
  event: string;
  sort: 'ASC' | 'DESC';
  /** SUPPLEMENTAL fields are shown beside the entry and never rank it. */
  ranks: boolean;
}

export interface LeaderboardPlan {
  shortCode: string;
  collection: string;
  fields: LeaderboardField[];
  partitions: string[];
  reset: ResetFrequency;
  /** Hash of everything that decides an entry's values and order; a change starts the board afresh. */
  spec: string;
  /** The stage configuration's version number: newer boards replace older ones, never the reverse. */
  configSeq: number;
}

export interface EventPlan {
  shortCode: string;
  attributes: EventAttribute[];
  runningTotals: RunningTotalPlan[];
  leaderboards: LeaderboardPlan[];
}

export interface RuntimeConfig {
  version: string;
  events: Map<string, EventPlan>;
  leaderboards: Map<string, LeaderboardPlan>;
  /** Cloud Code by `folder/shortCode`, and the modules' sources by short code. */
  scripts: Map<string, CloudScript>;
  modules: Map<string, string>;
}

const codeOf = (re: RegExp, ref: string) => re.exec(ref)?.[1] ?? '';
const attributeOf = (ref: string) => ATTRIBUTE_REF.exec(ref)?.[2] ?? '';

function planRunningTotal(rt: RunningTotal): RunningTotalPlan {
  return {
    shortCode: rt.shortCode,
    collection: `${rt.shortCode}-runningTotal`,
    event: codeOf(EVENT_REF, rt.event['@ref']),
    groupBy: rt.groupBy.map((g) => attributeOf(g['@ref'])),
    collectors: rt.collectors.map((c) => ({
      attribute: attributeOf(c.attribute['@ref']),
      calculation: c.calculation,
      filter: c.filter,
    })),
  };
}

function planLeaderboard(
  lb: Leaderboard,
  totals: Map<string, RunningTotalPlan>,
  configSeq: number,
): LeaderboardPlan {
  const fields: LeaderboardField[] = [];
  for (const f of lb.fields) {
    const rt = totals.get(codeOf(RUNNING_TOTAL_REF, f.runningTotal['@ref']));
    const collector = rt?.collectors.find((c) => c.attribute === f.collector);
    // The configuration module refuses dangling references; a field without one is skipped, not guessed.
    if (!rt || !collector) continue;
    fields.push({
      ...collector,
      runningTotal: rt.shortCode,
      event: rt.event,
      sort: f.sort,
      ranks: collector.calculation !== 'SUPPLEMENTAL',
    });
  }
  const partitions = lb.partitions.map((p) => p.attribute);
  const spec = createHash('sha256').update(JSON.stringify({ fields, partitions })).digest('hex').slice(0, 32);
  return {
    shortCode: lb.shortCode,
    collection: `${lb.shortCode}-leaderboard`,
    fields,
    partitions,
    reset: lb.resetFrequency,
    spec,
    configSeq,
  };
}

/** Compiles a configuration; lists are kept in short-code order so every writer locks rows in one order. */
export function compileRuntimeConfig(version: string, config: ConfigDoc): RuntimeConfig {
  const byCode = <T extends { shortCode: string }>(a: T, b: T) =>
    a.shortCode < b.shortCode ? -1 : a.shortCode > b.shortCode ? 1 : 0;
  const totals = new Map(config['~runningTotals'].map((rt) => [rt.shortCode, planRunningTotal(rt)]));
  // Versions read 'preview:12' or 'live:3': the number grows with every change of that stage's configuration.
  const seq = Number(version.slice(version.lastIndexOf(':') + 1)) || 0;
  const leaderboards = new Map(
    config['~leaderboards'].map((lb) => [lb.shortCode, planLeaderboard(lb, totals, seq)]),
  );
  const events = new Map<string, EventPlan>();
  for (const e of config['~events']) {
    events.set(e.shortCode, {
      shortCode: e.shortCode,
      attributes: e['~attributes'],
      runningTotals: [...totals.values()].filter((rt) => rt.event === e.shortCode).sort(byCode),
      leaderboards: [...leaderboards.values()]
        .filter((lb) => lb.fields.some((f) => f.event === e.shortCode))
        .sort(byCode),
    });
  }
  const scripts = new Map((config['~scripts'] ?? []).map((s) => [`${s.folder}/${s.shortCode}`, s]));
  const modules = new Map(
    (config['~scripts'] ?? []).filter((s) => s.folder === 'modules').map((s) => [s.shortCode, s.script]),
  );
  return { version, events, leaderboards, scripts, modules };
}
