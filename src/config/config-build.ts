// Path-like ids and canonical entities: bodies (already schema-checked) become stored entities, fields in order.
import type { Static } from 'typebox';
import { SCRIPT_FOLDERS } from '../types/config.js';
import type {
  AttributeInput,
  CloudScript,
  ConfigDoc,
  EventAttribute,
  EventInput,
  GameEvent,
  IndexedType,
  IndexedTypeInput,
  Leaderboard,
  LeaderboardInput,
  RunningTotal,
  RunningTotalInput,
} from './config-types.js';

export type AttributeBody = Static<typeof AttributeInput>;
export type EventBody = Static<typeof EventInput>;
export type RunningTotalBody = Static<typeof RunningTotalInput>;
export type LeaderboardBody = Static<typeof LeaderboardInput>;
export type IndexedTypeBody = Static<typeof IndexedTypeInput>;

export const ids = {
  event: (event: string) => `/~events/${event}`,
  attribute: (event: string, attribute: string) => `/~events/${event}/~attributes/${attribute}`,
  runningTotal: (shortCode: string) => `/~runningTotals/${shortCode}`,
  leaderboard: (shortCode: string) => `/~leaderboards/${shortCode}`,
  indexedType: (shortCode: string) => `/~indexedTypes/${shortCode}`,
  credential: (name: string) => `/~credentials/${name}`,
  script: (folder: string, shortCode: string) => `/~scripts/${folder}/${shortCode}`,
};

export const EVENT_REF = /^\/~events\/([^/]+)$/;
export const ATTRIBUTE_REF = /^\/~events\/([^/]+)\/~attributes\/([^/]+)$/;
export const RUNNING_TOTAL_REF = /^\/~runningTotals\/([^/]+)$/;

export function buildAttribute(event: string, a: AttributeBody): EventAttribute {
  return {
    '@id': ids.attribute(event, a.shortCode),
    name: a.name,
    shortCode: a.shortCode,
    dataType: a.dataType,
    defaultAggregationType: a.defaultAggregationType,
    // Unset and null are the same thing: the answer shows null.
    defaultValue: a.defaultValue ?? null,
  };
}

export function buildEvent(e: EventBody): GameEvent {
  return {
    '@id': ids.event(e.shortCode),
    name: e.name,
    shortCode: e.shortCode,
    description: e.description,
    '~attributes': (e['~attributes'] ?? []).map((a) => buildAttribute(e.shortCode, a)),
  };
}

export function buildRunningTotal(r: RunningTotalBody): RunningTotal {
  return {
    '@id': ids.runningTotal(r.shortCode),
    shortCode: r.shortCode,
    name: r.name,
    description: r.description ?? '',
    event: { '@ref': r.event['@ref'] },
    groupBy: (r.groupBy ?? []).map((g) => ({ '@ref': g['@ref'] })),
    collectors: r.collectors.map((c) => ({
      attribute: { '@ref': c.attribute['@ref'] },
      calculation: c.calculation,
      ...(c.filter ? { filter: { operator: c.filter.operator, value: c.filter.value } } : {}),
    })),
  };
}

export function buildLeaderboard(l: LeaderboardBody): Leaderboard {
  return {
    '@id': ids.leaderboard(l.shortCode),
    shortCode: l.shortCode,
    name: l.name,
    description: l.description ?? '',
    fields: l.fields.map((f) => ({
      runningTotal: { '@ref': f.runningTotal['@ref'] },
      collector: f.collector,
      sort: f.sort,
    })),
    partitions: (l.partitions ?? []).map((p) => ({ attribute: p.attribute })),
    resetFrequency: l.resetFrequency ?? 'NEVER',
  };
}

export function buildIndexedType(t: IndexedTypeBody): IndexedType {
  return {
    '@id': ids.indexedType(t.shortCode),
    shortCode: t.shortCode,
    name: t.name,
    fields: t.fields.map((f) => ({ name: f.name, type: f.type })),
  };
}

export function buildScript(s: CloudScript): CloudScript {
  return { folder: s.folder, shortCode: s.shortCode, script: s.script };
}

/** Scripts in their fixed order: by folder (SCRIPT_FOLDERS), then short code. */
export function sortScripts(scripts: CloudScript[]): CloudScript[] {
  const rank = (s: CloudScript) => SCRIPT_FOLDERS.indexOf(s.folder);
  return scripts.sort(
    (a, b) => rank(a) - rank(b) || (a.shortCode < b.shortCode ? -1 : a.shortCode > b.shortCode ? 1 : 0),
  );
}

/** A document with `scripts` as its Cloud Code: `~scripts` is present only when the game has scripts. */
export function withScripts(doc: ConfigDoc, scripts: CloudScript[]): ConfigDoc {
  const { '~scripts': _, ...rest } = doc;
  return scripts.length > 0 ? { ...rest, '~scripts': sortScripts(scripts.map(buildScript)) } : rest;
}

/** A stored document in canonical form (jsonb does not keep key order; older rows may lack a collection). */
export function canonicalDoc(stored: Partial<ConfigDoc> | null | undefined): ConfigDoc {
  const doc: ConfigDoc = {
    '~events': (stored?.['~events'] ?? []).map(buildEvent),
    '~runningTotals': (stored?.['~runningTotals'] ?? []).map(buildRunningTotal),
    '~leaderboards': (stored?.['~leaderboards'] ?? []).map(buildLeaderboard),
    '~indexedTypes': (stored?.['~indexedTypes'] ?? []).map(buildIndexedType),
  };
  const scripts = stored?.['~scripts'] ?? [];
  return scripts.length > 0 ? { ...doc, '~scripts': scripts.map(buildScript) } : doc;
}

/** The short code at the end of an attribute reference. */
export function attributeCodeOf(ref: string): string | undefined {
  return ATTRIBUTE_REF.exec(ref)?.[2];
}
