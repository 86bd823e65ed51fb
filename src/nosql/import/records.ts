// One line of an import file → one checked record, in the shapes the exports write (docs/exports.md, "File format").
import { isPlaybaseError } from '../../errors.js';
import { type Doc, fromWire, idKey } from '../../query/values.js';
import { META_PREFIX, RUNTIME_PREFIX, SYSTEM_COLLECTIONS } from '../collections.js';
import { checkIndexedFields, checkItemId } from '../data-service.js';
import type { DataType } from '../data-types.js';
import { checkCollectionName } from '../scope.js';
import { readDocument, storedDocument } from '../wire.js';
import { importErrors } from './errors.js';
import type { Line } from './lines.js';

/** A document of the mongo export: `{"collection": …, "document": {…}}`. */
export interface DocumentRecord {
  line: number;
  collection: string;
  doc: Doc;
  /** The id column: canonical extended JSON of the _id. */
  key: string;
  /** The stored form, as bound to the INSERT. */
  text: string;
}

/** An item of the data export: `{"type", "id", "data", "version", "expiresAt", "updatedAt"}`. */
export interface ItemRecord {
  line: number;
  type: string;
  id: string;
  /** The stored form of data. */
  text: string;
  /** int64 as decimal text. */
  version: string;
  expiresAt: Date | null;
  updatedAt: Date;
}

export type CollectionKind = 'system' | 'leaderboard' | 'runningTotal' | 'runtime' | 'meta';

/** The group a collection name belongs to, or undefined: no collection of a stage can have that name. */
export function kindOf(collection: string): CollectionKind | undefined {
  if ((SYSTEM_COLLECTIONS as readonly string[]).includes(collection)) return 'system';
  if (collection.startsWith(RUNTIME_PREFIX)) return 'runtime';
  if (collection.startsWith(META_PREFIX)) return 'meta';
  if (collection.endsWith('-leaderboard')) return 'leaderboard';
  if (collection.endsWith('-runningTotal')) return 'runningTotal';
  return undefined;
}

/** Runs `check`; a 4xx catalogue error it throws becomes IMPORT_BAD_RECORD naming the line. */
function onLine<T>(line: number, check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (isPlaybaseError(e) && e.status < 500 && e.code !== 'IMPORT_BAD_RECORD')
      throw importErrors.badRecord(line, e.message);
    throw e;
  }
}

/** The line's JSON object, holding only `allowed` keys and every one of `required`. */
function objectOf(
  line: Line,
  allowed: readonly string[],
  required: readonly string[],
): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(line.text);
  } catch (e) {
    const why = line.text.trim() === '' ? 'an empty line' : `not JSON (${(e as Error).message})`;
    throw importErrors.badRecord(line.number, why);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw importErrors.badRecord(line.number, 'not a JSON object');
  const obj = json as Record<string, unknown>;
  const extra = Object.keys(obj).find((k) => !allowed.includes(k));
  if (extra !== undefined)
    throw importErrors.badRecord(
      line.number,
      `unknown field "${extra.slice(0, 100)}" (allowed: ${allowed.join(', ')})`,
    );
  const missing = required.find((k) => !Object.hasOwn(obj, k));
  if (missing !== undefined) throw importErrors.badRecord(line.number, `no "${missing}" field`);
  return obj;
}

const MONGO_FIELDS = ['collection', 'document'];

export function parseDocumentLine(line: Line): DocumentRecord {
  const obj = objectOf(line, MONGO_FIELDS, MONGO_FIELDS);
  const n = line.number;
  return onLine(n, () => {
    if (typeof obj.collection !== 'string') throw importErrors.badRecord(n, 'collection must be a string');
    const collection = checkCollectionName(obj.collection);
    if (!kindOf(collection)) {
      throw importErrors.badRecord(
        n,
        `${collection} is not a system (${SYSTEM_COLLECTIONS.join(', ')}), leaderboard, running-total, runtime (script.*) or meta (meta.*) collection`,
      );
    }
    const doc = readDocument(obj.document, 'document');
    if (!Object.hasOwn(doc, '_id')) throw importErrors.badRecord(n, 'the document has no _id');
    return { line: n, collection, doc, key: idKey(doc._id!), text: storedDocument(doc) };
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;
const DATA_FIELDS = ['type', 'id', 'data', 'version', 'expiresAt', 'updatedAt'];
const LONG_MAX = 2n ** 63n - 1n;

function dateOf(value: unknown, name: string): Date {
  const v = fromWire(value, {}, name);
  if (!(v instanceof Date)) throw new Error(`${name} must be a date ({"$date": …})`);
  return v;
}

function versionOf(value: unknown): string {
  const v = fromWire(value, {}, 'version');
  const n = typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
  if (typeof n !== 'bigint' || n < 1n || n > LONG_MAX)
    throw new Error('version must be an integer of 1 or more');
  return n.toString();
}

/** `declared`: the stage's data types by short code; an item of a declared type must fit its indexed fields. */
export function parseItemLine(line: Line, declared: ReadonlyMap<string, DataType>, now: number): ItemRecord {
  const obj = objectOf(line, DATA_FIELDS, ['type', 'id', 'data']);
  const n = line.number;
  return onLine(n, () => {
    const { type, id } = obj;
    if (typeof type !== 'string' || type.length === 0 || type.length > 64 || CONTROL.test(type))
      throw importErrors.badRecord(n, 'type must be a data type short code of 1 to 64 characters');
    if (typeof id !== 'string') throw importErrors.badRecord(n, 'id must be a string');
    checkItemId(id);
    const data = readDocument(obj.data, 'data');
    const fields = declared.get(type)?.fields;
    if (fields) checkIndexedFields(data, fields);
    try {
      return {
        line: n,
        type,
        id,
        text: storedDocument(data),
        version: obj.version === undefined ? '1' : versionOf(obj.version),
        expiresAt:
          obj.expiresAt === undefined || obj.expiresAt === null ? null : dateOf(obj.expiresAt, 'expiresAt'),
        updatedAt: obj.updatedAt === undefined ? new Date(now) : dateOf(obj.updatedAt, 'updatedAt'),
      };
    } catch (e) {
      if (isPlaybaseError(e)) throw e;
      throw importErrors.badRecord(n, (e as Error).message);
    }
  });
}
