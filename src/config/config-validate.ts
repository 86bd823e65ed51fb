// Rules a configuration must keep as a whole: types, aggregations, defaults, uniqueness and references.
import type { TSchema } from 'typebox';
import { Errors } from 'typebox/value';
import { RUNTIME_REQUEST_CLASSES, RUNTIME_RESPONSE_CLASSES, SYSTEM_SCRIPTS } from '../types/cloud-code.js';
import { ATTRIBUTE_REF, attributeCodeOf, EVENT_REF, ids, RUNNING_TOTAL_REF } from './config-build.js';
import {
  type CloudScript,
  type ConfigDoc,
  type DataType,
  type EventAttribute,
  type GameEvent,
  type IndexedType,
  type Leaderboard,
  NUMERIC_AGGREGATIONS,
  type RunningTotal,
  SCRIPT_LIMITS,
} from './config-types.js';
import { configErrors } from './errors.js';

/** One broken rule; `reference` marks a pointer to nothing (CONFIG_REFERENCE_INVALID rather than CONFIG_INVALID). */
export interface Issue {
  field: string;
  message: string;
  reference?: boolean;
}

const at = (prefix: string, field: string) => (prefix ? `${prefix}.${field}` : field);
const refIssue = (field: string, message: string): Issue => ({ field, message, reference: true });

/** Throws CONFIG_REFERENCE_INVALID when a reference is broken, else CONFIG_INVALID; returns when all is well. */
export function throwIfIssues(issues: Issue[]): void {
  const first = issues.find((i) => i.reference) ?? issues[0];
  if (!first) return;
  const details = issues.map(({ field, message }) => ({ field, message }));
  const message = `${first.field}: ${first.message}`;
  throw first.reference
    ? configErrors.badReference(message, details)
    : configErrors.invalid(message, details);
}

/** Schema errors of a value as issues, one per field (used where no route schema checked the value first). */
export function shapeIssues(schema: TSchema, value: unknown): Issue[] {
  const seen = new Set<string>();
  const issues: Issue[] = [];
  for (const e of Errors(schema, value)) {
    if (e.keyword === 'boolean') continue;
    // instancePath is a JSON pointer: '~' arrives as '~0' (every collection name starts with one).
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
      .join('.');
    const params = e.params as { requiredProperties?: string[]; additionalProperties?: string[] };
    const leaf = params.requiredProperties?.join(',') ?? params.additionalProperties?.join(',') ?? '';
    const field = [path, leaf].filter(Boolean).join('.') || '(document)';
    if (seen.has(field)) continue;
    seen.add(field);
    const message = e.keyword === 'additionalProperties' ? 'is not an allowed field' : e.message;
    issues.push({ field, message });
  }
  return issues;
}

function isNumericType(t: DataType): boolean {
  return t === 'int' || t === 'number';
}

/** Whether a value can be stored in an attribute of this data type. */
export function valueFits(t: DataType, v: unknown): boolean {
  if (t === 'int') return typeof v === 'number' && Number.isSafeInteger(v);
  if (t === 'number') return typeof v === 'number' && Number.isFinite(v);
  if (t === 'string') return typeof v === 'string';
  return v !== undefined;
}

export function validateAttribute(a: EventAttribute, prefix: string): Issue[] {
  const issues: Issue[] = [];
  if (NUMERIC_AGGREGATIONS.includes(a.defaultAggregationType) && !isNumericType(a.dataType)) {
    issues.push({
      field: at(prefix, 'defaultAggregationType'),
      message: `${a.defaultAggregationType} needs a numeric attribute (int or number), not ${a.dataType}`,
    });
  }
  if (a.defaultValue !== null && !valueFits(a.dataType, a.defaultValue)) {
    issues.push({ field: at(prefix, 'defaultValue'), message: `does not fit the data type ${a.dataType}` });
  }
  return issues;
}

export function validateEvent(e: GameEvent, prefix: string): Issue[] {
  return [
    ...duplicates(
      e['~attributes'].map((a) => a.shortCode),
      at(prefix, '~attributes'),
    ),
    ...e['~attributes'].flatMap((a, i) => validateAttribute(a, at(prefix, `~attributes.${i}`))),
  ];
}

/** The event's attribute a reference names, or an issue when it names anything else. */
function attributeOf(
  event: GameEvent,
  ref: string,
  field: string,
  issues: Issue[],
): EventAttribute | undefined {
  const m = ATTRIBUTE_REF.exec(ref);
  const attribute =
    m?.[1] === event.shortCode ? event['~attributes'].find((a) => a.shortCode === m[2]) : undefined;
  if (!attribute) issues.push(refIssue(field, `${ref} is not an attribute of ${event['@id']}`));
  return attribute;
}

/** Lookups by short code, so that checking a whole document stays linear in its size. */
export interface ConfigIndex {
  events: Map<string, GameEvent>;
  runningTotals: Map<string, RunningTotal>;
}

export function indexConfig(doc: ConfigDoc): ConfigIndex {
  return { events: firstByShortCode(doc['~events']), runningTotals: firstByShortCode(doc['~runningTotals']) };
}

// The first of duplicates wins, as a search would find it; the duplicate itself is reported apart.
function firstByShortCode<T extends { shortCode: string }>(entities: T[]): Map<string, T> {
  const map = new Map<string, T>();
  for (const e of entities) if (!map.has(e.shortCode)) map.set(e.shortCode, e);
  return map;
}

export function validateRunningTotal(rt: RunningTotal, index: ConfigIndex, prefix: string): Issue[] {
  const issues: Issue[] = [];
  const code = EVENT_REF.exec(rt.event['@ref'])?.[1];
  const event = code === undefined ? undefined : index.events.get(code);
  if (!event) return [refIssue(at(prefix, 'event.@ref'), `${rt.event['@ref']} is not an event of this game`)];
  for (const [i, g] of rt.groupBy.entries()) {
    attributeOf(event, g['@ref'], at(prefix, `groupBy.${i}.@ref`), issues);
  }
  issues.push(
    ...duplicates(
      rt.groupBy.map((g) => g['@ref']),
      at(prefix, 'groupBy'),
    ),
  );
  issues.push(
    ...duplicates(
      rt.collectors.map((c) => c.attribute['@ref']),
      at(prefix, 'collectors'),
    ),
  );
  rt.collectors.forEach((c, i) => {
    const field = at(prefix, `collectors.${i}`);
    const attribute = attributeOf(event, c.attribute['@ref'], `${field}.attribute.@ref`, issues);
    if (!attribute) return;
    if (NUMERIC_AGGREGATIONS.includes(c.calculation) && !isNumericType(attribute.dataType)) {
      issues.push({
        field: `${field}.calculation`,
        message: `${c.calculation} needs a numeric attribute; ${attribute.shortCode} is ${attribute.dataType}`,
      });
    }
    if (!c.filter) return;
    if (attribute.dataType === 'json' && !['EQ', 'NE'].includes(c.filter.operator)) {
      issues.push({
        field: `${field}.filter.operator`,
        message: 'a json attribute compares with EQ or NE only',
      });
    }
    if (c.filter.value === null || !valueFits(attribute.dataType, c.filter.value)) {
      issues.push({
        field: `${field}.filter.value`,
        message: `does not fit the data type ${attribute.dataType}`,
      });
    }
  });
  return issues;
}

export function validateLeaderboard(lb: Leaderboard, index: ConfigIndex, prefix: string): Issue[] {
  const issues: Issue[] = [];
  const used: RunningTotal[] = [];
  lb.fields.forEach((f, i) => {
    const ref = f.runningTotal['@ref'];
    const code = RUNNING_TOTAL_REF.exec(ref)?.[1];
    const rt = code === undefined ? undefined : index.runningTotals.get(code);
    if (!rt) {
      issues.push(
        refIssue(at(prefix, `fields.${i}.runningTotal.@ref`), `${ref} is not a running total of this game`),
      );
      return;
    }
    used.push(rt);
    if (!rt.collectors.some((c) => attributeCodeOf(c.attribute['@ref']) === f.collector)) {
      issues.push(
        refIssue(at(prefix, `fields.${i}.collector`), `${f.collector} is not a collector of ${ref}`),
      );
    }
  });
  issues.push(
    ...duplicates(
      lb.fields.map((f) => `${f.runningTotal['@ref']} ${f.collector}`),
      at(prefix, 'fields'),
    ),
  );
  issues.push(
    ...duplicates(
      lb.partitions.map((p) => p.attribute),
      at(prefix, 'partitions'),
    ),
  );
  lb.partitions.forEach((p, i) => {
    // A partition splits running-total records by a group value, so every running total must group by it.
    for (const rt of used) {
      if (!rt.groupBy.some((g) => attributeCodeOf(g['@ref']) === p.attribute)) {
        issues.push(
          refIssue(at(prefix, `partitions.${i}.attribute`), `${rt['@id']} does not group by ${p.attribute}`),
        );
      }
    }
  });
  return issues;
}

export function validateIndexedType(t: IndexedType, prefix: string): Issue[] {
  return duplicates(
    t.fields.map((f) => f.name),
    at(prefix, 'fields'),
  );
}

const REQUESTS = new Set<string>(RUNTIME_REQUEST_CLASSES);
const RESPONSES = new Set<string>(RUNTIME_RESPONSE_CLASSES);
const SYSTEM = new Set<string>(SYSTEM_SCRIPTS);

/**
 * What a script's name must point at: an event script its event, a request script a runtime request class, a
 * response script a response class, a system script a system short code, a callback script a server credential
 * (checked only when `credentials` is given: they live apart from the document). Modules are free.
 */
export function scriptReferenceIssue(
  s: CloudScript,
  index: ConfigIndex,
  credentials: ReadonlySet<string> | undefined,
  field: string,
): Issue | undefined {
  const fail = (what: string) => refIssue(field, `${s.folder}/${s.shortCode}: ${what}`);
  switch (s.folder) {
    case 'event':
      return index.events.has(s.shortCode)
        ? undefined
        : fail(`${ids.event(s.shortCode)} is not an event of this game`);
    case 'request':
      return REQUESTS.has(s.shortCode)
        ? undefined
        : fail(`not a request class (${RUNTIME_REQUEST_CLASSES.join(', ')})`);
    case 'response':
      return RESPONSES.has(s.shortCode)
        ? undefined
        : fail(`not a response class (${RUNTIME_RESPONSE_CLASSES.join(', ')})`);
    case 'system':
      return SYSTEM.has(s.shortCode) ? undefined : fail(`not a system script (${SYSTEM_SCRIPTS.join(', ')})`);
    case 'callbacks':
      return credentials === undefined || credentials.has(s.shortCode)
        ? undefined
        : fail(`${ids.credential(s.shortCode)} is not a server credential of this game`);
    default:
      return undefined;
  }
}

/** The UTF-8 size of a script's source. */
export const scriptBytes = (source: string) => Buffer.byteLength(source, 'utf8');

/** Names, sizes and references of the document's scripts (syntax is checked where a script is written). */
export function validateScripts(
  doc: ConfigDoc,
  index: ConfigIndex,
  credentials?: ReadonlySet<string>,
): Issue[] {
  const scripts = doc['~scripts'] ?? [];
  const issues: Issue[] = duplicates(
    scripts.map((s) => `${s.folder}/${s.shortCode}`),
    '~scripts',
  );
  if (scripts.length > SCRIPT_LIMITS.scripts) {
    issues.push({
      field: '~scripts',
      message: `${scripts.length} scripts; a game holds at most ${SCRIPT_LIMITS.scripts}`,
    });
  }
  let total = 0;
  scripts.forEach((s, i) => {
    const bytes = scriptBytes(s.script);
    total += bytes;
    if (bytes > SCRIPT_LIMITS.scriptBytes) {
      issues.push({
        field: `~scripts.${i}.script`,
        message: `${s.folder}/${s.shortCode} is ${bytes} bytes; a script holds at most ${SCRIPT_LIMITS.scriptBytes}`,
      });
    }
    const broken = scriptReferenceIssue(s, index, credentials, `~scripts.${i}.shortCode`);
    if (broken) issues.push(broken);
  });
  if (total > SCRIPT_LIMITS.totalBytes) {
    issues.push({
      field: '~scripts',
      message: `the scripts hold ${total} bytes; a game holds at most ${SCRIPT_LIMITS.totalBytes}`,
    });
  }
  return issues;
}

/**
 * Every rule over a whole document; an empty answer means the document may be stored. `credentials`, the game's
 * server credential names, is needed to check callback scripts (skipped without it).
 */
export function validateConfigDoc(doc: ConfigDoc, credentials?: ReadonlySet<string>): Issue[] {
  const index = indexConfig(doc);
  return [
    ...duplicates(
      doc['~events'].map((e) => e.shortCode),
      '~events',
    ),
    ...duplicates(
      doc['~runningTotals'].map((r) => r.shortCode),
      '~runningTotals',
    ),
    ...duplicates(
      doc['~leaderboards'].map((l) => l.shortCode),
      '~leaderboards',
    ),
    ...duplicates(
      doc['~indexedTypes'].map((t) => t.shortCode),
      '~indexedTypes',
    ),
    ...doc['~events'].flatMap((e, i) => validateEvent(e, `~events.${i}`)),
    ...doc['~runningTotals'].flatMap((r, i) => validateRunningTotal(r, index, `~runningTotals.${i}`)),
    ...doc['~leaderboards'].flatMap((l, i) => validateLeaderboard(l, index, `~leaderboards.${i}`)),
    ...doc['~indexedTypes'].flatMap((t, i) => validateIndexedType(t, `~indexedTypes.${i}`)),
    ...validateScripts(doc, index, credentials),
  ];
}

/** An @id sent in a body must be the one the entity gets (a GET answer may be sent back as it is). */
export function idIssues(given: string | undefined, expected: string, field: string): Issue[] {
  return given === undefined || given === expected
    ? []
    : [{ field, message: `is ${given} but the entity's id is ${expected}` }];
}

/** The ids of the entities that point at `id` or at anything under it (an event's attributes). */
export function referrersOf(doc: ConfigDoc, id: string): string[] {
  const hits = (ref: string) => ref === id || ref.startsWith(`${id}/`);
  const referrers: string[] = [];
  for (const rt of doc['~runningTotals']) {
    const refs = [rt.event, ...rt.groupBy, ...rt.collectors.map((c) => c.attribute)];
    if (refs.some((r) => hits(r['@ref']))) referrers.push(rt['@id']);
  }
  for (const lb of doc['~leaderboards']) {
    if (lb.fields.some((f) => hits(f.runningTotal['@ref']))) referrers.push(lb['@id']);
  }
  // An event's script is attached to the event itself (not to its attributes).
  for (const s of doc['~scripts'] ?? []) {
    if (s.folder === 'event' && ids.event(s.shortCode) === id)
      referrers.push(ids.script(s.folder, s.shortCode));
  }
  return referrers;
}

function duplicates(values: string[], field: string): Issue[] {
  const seen = new Set<string>();
  const issues: Issue[] = [];
  for (const v of values) {
    if (seen.has(v)) issues.push({ field, message: `${v} appears more than once` });
    seen.add(v);
  }
  return issues;
}
