// Spark.getGameDataService(): the host side. Each call runs the data service's core functions
// (src/nosql/data-service.ts) in the executing game's stage, on the types its configuration declares
// (~indexedTypes). Reads see the execution's own writes; writes go into the execution's transaction (rolled back
// with the rest of a failed execution). A refusal of the service (an undeclared type, a field not indexed, a
// version conflict) is answered as `{error}` for the script's `.error()`; a database failure is a script error.
import { PlaybaseError } from '../errors.js';
import { type DataQuery, parseDataQuery, type QueryNode } from '../nosql/data-query.js';
import {
  checkIndexedFields,
  checkItemId,
  type DataItem,
  deleteItem,
  getItem,
  putItem,
  queryItems,
  type TypeScope,
} from '../nosql/data-service.js';
import { type DataType, requireDataType } from '../nosql/data-types.js';
import { withDbErrors } from '../nosql/db-errors.js';
import { type Doc, fromWire, isDoc, toWire, type Value } from '../query/values.js';
import { withSavepoint } from '../store/db.js';
import type { Session } from './session.js';

/** Tries of a read-modify-write persist that another writer keeps overtaking. */
const TRIES = 5;
const PAGE = 100;

interface Typed {
  scope: TypeScope;
  type: DataType;
}

const types = new WeakMap<Session, Map<string, Typed>>();

async function typed(session: Session, shortCode: unknown): Promise<Typed> {
  if (typeof shortCode !== 'string' || shortCode.length === 0 || shortCode.length > 100)
    throw new Error('a data type is a short code of 1 to 100 characters');
  const known = types.get(session) ?? new Map<string, Typed>();
  types.set(session, known);
  const held = known.get(shortCode);
  if (held) return held;
  const { game, stage } = session.gs;
  const type = await requireDataType(session.readPool(), game, stage, shortCode);
  const out = { scope: { game, stage, type: type.shortCode }, type };
  known.set(shortCode, out);
  return out;
}

function itemOut(item: DataItem): Record<string, unknown> {
  return {
    type: item.type,
    id: item.id,
    data: toWire(item.data as Value),
    version: item.version,
    expiresAt: item.expiresAt,
  };
}

function dataOf(v: unknown): Doc {
  const doc = fromWire(v ?? {});
  if (!isDoc(doc)) throw new Error('an item\u2019s data is a JSON object');
  return doc;
}

/** The script's condition tree → the data service's query body (the same tree, validated there). */
function queryBody(a: Record<string, unknown>): Record<string, unknown> {
  const sort = Array.isArray(a.sort) ? (a.sort as { field: unknown; asc: unknown }[]) : [];
  if (sort.length > 1)
    throw new PlaybaseError(400, 'DATA_BAD_QUERY', 'Bad data query: sort by one field only');
  return {
    ...(a.condition ? { query: a.condition } : {}),
    ...(sort[0] ? { sort: sort[0].field, asc: sort[0].asc !== false } : {}),
    offset: typeof a.offset === 'number' ? a.offset : 0,
    limit: PAGE,
  };
}

/** Whether the stored data matches the condition, as the data service's SQL would (data-query.ts). */
function matches(node: QueryNode, data: Doc): boolean {
  switch (node.kind) {
    case 'and':
      return node.children.every((c) => matches(c, data));
    case 'or':
      return node.children.some((c) => matches(c, data));
    case 'not':
      return !matches(node.child, data);
    default: {
      const v = data[node.field.name];
      if (typeof v !== node.field.type) return false;
      const x = v as string | number;
      const want = node.value;
      switch (node.op) {
        case 'EQ':
          return x === want;
        case 'NE':
          return x !== want;
        case 'LT':
          return x < (want as string | number);
        case 'GT':
          return x > (want as string | number);
        case 'LE':
          return x <= (want as string | number);
        case 'GE':
          return x >= (want as string | number);
        case 'IN':
          return (want as (string | number)[]).includes(x);
        default:
          return String(x).startsWith(String(want));
      }
    }
  }
}

/** The data a persist writes: the script's whole data, or its changes since the load applied to the stored data. */
function merged(a: Record<string, unknown>, data: Doc, stored: Doc | undefined): Doc {
  if (!stored || a.overwrite || typeof a.base !== 'object' || a.base === null) return data;
  const base = dataOf(a.base);
  const out: Doc = { ...stored };
  for (const k of Object.keys(base)) if (!Object.hasOwn(data, k)) delete out[k];
  for (const [k, v] of Object.entries(data)) {
    const was = base[k];
    if (JSON.stringify(toWire(was as Value)) === JSON.stringify(toWire(v as Value))) continue;
    const now = out[k];
    out[k] =
      a.atomic && typeof v === 'number' && typeof was === 'number' && typeof now === 'number'
        ? now + (v - was)
        : v;
  }
  return out;
}

async function persist(session: Session, t: Typed, a: Record<string, unknown>): Promise<string> {
  const id = checkItemId(String(a.id ?? ''));
  const data = dataOf(a.data);
  checkIndexedFields(data, t.type.fields);
  const condition =
    a.condition === undefined || a.condition === null
      ? undefined
      : (parseDataQuery({ query: a.condition }, t.type.shortCode, t.type.fields).where as QueryNode);
  const tx = await session.transaction();
  const now = session.env.clock();
  const expiresAt = typeof a.expiresAt === 'number' ? a.expiresAt : null;
  const ttlSeconds = expiresAt === null ? undefined : Math.max(1, Math.ceil((expiresAt - now) / 1000));
  for (let i = 0; ; i++) {
    const stored = await getItem(tx.client, t.scope, id, now).catch((e: unknown) => {
      if (e instanceof PlaybaseError && e.code === 'DATA_ITEM_NOT_FOUND') return undefined;
      throw e;
    });
    if (a.versionCheck && (stored?.version ?? 0) !== Number(a.version ?? 0))
      return JSON.stringify({ error: `DATA_VERSION_CONFLICT: item ${id} was changed since it was read` });
    if (condition && !(stored && matches(condition, stored.data)))
      return JSON.stringify({ error: `DATA_CONDITION_FAILED: item ${id} does not match the condition` });
    const next = merged(a, data, stored?.data);
    checkIndexedFields(next, t.type.fields);
    try {
      const item = await withSavepoint(tx.client, 'cc_data', () =>
        putItem(tx.client, t.scope, id, { data: next, ttlSeconds, versionCheck: stored?.version ?? 0 }, now),
      );
      return JSON.stringify({ item: itemOut(item) });
    } catch (e) {
      // Another execution wrote the item between the read and the write: read it again and re-apply.
      if (!(e instanceof PlaybaseError && e.code === 'DATA_VERSION_CONFLICT') || i + 1 >= TRIES) throw e;
    }
  }
}

async function call(session: Session, a: Record<string, unknown>): Promise<string> {
  const t = await typed(session, a.type);
  const now = session.env.clock();
  switch (a.op) {
    case 'get':
      try {
        const item = await getItem(session.readPool(), t.scope, checkItemId(String(a.id ?? '')), now);
        return JSON.stringify({ item: itemOut(item) });
      } catch (e) {
        if (e instanceof PlaybaseError && e.code === 'DATA_ITEM_NOT_FOUND')
          return JSON.stringify({ item: null });
        throw e;
      }
    case 'query': {
      const query: DataQuery = parseDataQuery(queryBody(a), t.type.shortCode, t.type.fields);
      const page = await queryItems(session.readPool(), t.scope, query, now);
      return JSON.stringify({ items: page.items.map(itemOut), nextOffset: page.nextOffset });
    }
    case 'put':
      return persist(session, t, a);
    case 'delete': {
      const tx = await session.transaction();
      const id = checkItemId(String(a.id ?? ''));
      await withSavepoint(tx.client, 'cc_data', () => deleteItem(tx.client, t.scope, id, now));
      return JSON.stringify({});
    }
    default:
      throw new Error(`unknown data service call ${String(a.op).slice(0, 50)}`);
  }
}

/** One data service call of a script: `{item}`, `{items, nextOffset}`, `{}` or `{error}`. */
export async function dataCall(session: Session, a: Record<string, unknown>): Promise<string> {
  const { env } = session;
  try {
    return await withDbErrors(env.pool, undefined, env.statementTimeoutMs, () => call(session, a));
  } catch (e) {
    if (e instanceof PlaybaseError && e.status < 500)
      return JSON.stringify({ error: `${e.code}: ${e.message}` });
    throw e;
  }
}
