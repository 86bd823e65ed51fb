// The lines of a NoSQL export: every document of a game's stage, one snapshot, with the private fields left out.
import type pg from 'pg';
import { readStageDocuments } from '../store/documents.js';
import { storedToCanonical } from './canonical-json.js';
import type { CollectionLine } from './export/ndjson-writer.js';
import type { Stage } from './scope.js';

// Fields that hold a credential: left out of player and externalAuthentication documents, at every depth. Names
// are compared normalized (lower case, without `_` and `-`), so `access_token`, `Refresh-Token` and
// `accessToken` are one name.
const SECRET_FIELDS = [
  'password',
  'passwd',
  'pwd',
  'passwordHash',
  'hashedPassword',
  'passwordSalt',
  'salt',
  'secret',
  'clientSecret',
  'apiSecret',
  'secretKey',
  'privateKey',
  'tokenSecret',
  'authToken',
  'authTokens',
  'token',
  'tokens',
  'accessToken',
  'accessTokens',
  'refreshToken',
  'refreshTokens',
  'idToken',
  'oauthToken',
  'bearerToken',
  'sessionToken',
  'sessionTokens',
  'session',
  'sessions',
];

// Fields that tell where a player is or was: left out at the top level of player documents (a game's own
// `scriptData.location` is its data, and is kept).
const LOCATION_FIELDS = [
  'location',
  'locations',
  'lastLocation',
  'geo',
  'geoLocation',
  'coordinates',
  'latitude',
  'longitude',
  'lat',
  'lng',
  'lon',
  'city',
  'country',
  'region',
  'postalCode',
  'zipCode',
  'timezone',
  'ip',
  'ipAddress',
  'lastIp',
  'lastIpAddress',
];

interface LeftOut {
  /** Left out at every depth. */
  anywhere: readonly string[];
  /** Left out at the top level only. */
  topLevel: readonly string[];
}

/**
 * Fields left out of the NoSQL export, by collection. They stay readable through the NoSQL find call.
 * Documented in the README ("Data exports") and docs/exports.md.
 */
const LEFT_OUT_FIELDS: Readonly<Record<string, LeftOut>> = {
  player: { anywhere: SECRET_FIELDS, topLevel: LOCATION_FIELDS },
  externalAuthentication: { anywhere: SECRET_FIELDS, topLevel: [] },
};

/** `access_token`, `Access-Token` and `accessToken` are one name. */
const normalizeFieldName = (name: string): string => name.toLowerCase().replace(/[_-]/g, '');

const LEFT_OUT: ReadonlyMap<string, { anywhere: Set<string>; topLevel: Set<string> }> = new Map(
  Object.entries(LEFT_OUT_FIELDS).map(([c, f]) => [
    c,
    {
      anywhere: new Set(f.anywhere.map(normalizeFieldName)),
      topLevel: new Set(f.topLevel.map(normalizeFieldName)),
    },
  ]),
);

interface Pending {
  from: unknown[] | Record<string, unknown>;
  to: unknown[] | Record<string, unknown>;
  top: boolean;
}

/** An empty copy of an object or array, queued to be filled; anything else as it is. */
function shell(value: unknown, queue: Pending[], top: boolean): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const to = Array.isArray(value) ? new Array<unknown>(value.length) : {};
  queue.push({ from: value as Pending['from'], to, top });
  return to;
}

/**
 * The stored document without the collection's left-out fields (a copy; the input is not changed). Iterative,
 * so a deeply nested document costs no stack.
 */
export function redactStored(collection: string, stored: Record<string, unknown>): Record<string, unknown> {
  const drop = LEFT_OUT.get(collection);
  if (!drop) return stored;
  const queue: Pending[] = [];
  const out = shell(stored, queue, true) as Record<string, unknown>;
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    const { from, to, top } = next;
    if (Array.isArray(from)) {
      for (let i = 0; i < from.length; i++) (to as unknown[])[i] = shell(from[i], queue, false);
      continue;
    }
    for (const key of Object.keys(from)) {
      // `$o` lists field order; names missing from the object are skipped when it is read, so it can stay.
      const name = normalizeFieldName(key);
      if (key !== '$o' && (drop.anywhere.has(name) || (top && drop.topLevel.has(name)))) continue;
      Object.defineProperty(to, key, {
        value: shell(from[key], queue, false),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return out;
}

/** One export line per document of the game's stage, by collection then _id, read from one snapshot. */
export async function* readCollectionLines(
  pool: pg.Pool,
  game: string,
  stage: Stage,
  batchSize?: number,
): AsyncGenerator<CollectionLine> {
  const rows = readStageDocuments(pool, { game, stage }, batchSize);
  for await (const batch of rows) {
    for (const row of batch) {
      yield {
        collection: row.collection,
        document: storedToCanonical(redactStored(row.collection, row.doc)),
      };
    }
  }
}
