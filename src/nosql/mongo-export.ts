// The lines of a NoSQL export: every document of a game's stage, one snapshot, with the private fields left out.
import type pg from 'pg';
import { storedToCanonical } from './canonical-json.js';
import type { CollectionLine } from './export/ndjson-writer.js';
import type { Stage } from './scope.js';
import { readSnapshot } from './snapshot-cursor.js';

// Fields that hold a credential: left out of player and externalAuthentication documents.
const SECRET_FIELDS = [
  'password',
  'passwordHash',
  'hashedPassword',
  'passwordSalt',
  'salt',
  'secret',
  'clientSecret',
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
  'sessionToken',
  'sessionTokens',
  'session',
  'sessions',
];

// Fields that tell where a player is or was: left out of player documents.
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

/**
 * Top-level fields left out of the NoSQL export, by collection; names match without regard to case
 * (`Password`, `IPAddress`). They stay readable through the NoSQL find call. Documented in the README.
 */
export const LEFT_OUT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  player: [...SECRET_FIELDS, ...LOCATION_FIELDS],
  externalAuthentication: SECRET_FIELDS,
};

const LEFT_OUT: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries(LEFT_OUT_FIELDS).map(([c, fields]) => [c, new Set(fields.map((f) => f.toLowerCase()))]),
);

/** The stored document without the collection's left-out fields (a copy; the input is not changed). */
export function redactStored(collection: string, stored: Record<string, unknown>): Record<string, unknown> {
  const drop = LEFT_OUT.get(collection);
  if (!drop) return stored;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(stored)) {
    // `$o` lists field order; names missing from the object are skipped when it is read, so it can stay.
    if (key !== '$o' && drop.has(key.toLowerCase())) continue;
    Object.defineProperty(out, key, {
      value: stored[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

interface DocumentRow {
  collection: string;
  doc: Record<string, unknown>;
}

/** One export line per document of the game's stage, by collection then _id, read from one snapshot. */
export async function* readCollectionLines(
  pool: pg.Pool,
  game: string,
  stage: Stage,
  batchSize?: number,
): AsyncGenerator<CollectionLine> {
  const rows = readSnapshot<DocumentRow>(
    pool,
    'SELECT collection, doc FROM nosql_documents WHERE game_id = $1 AND stage = $2 ORDER BY collection, id',
    [game, stage],
    batchSize,
  );
  for await (const batch of rows) {
    for (const row of batch) {
      yield {
        collection: row.collection,
        document: storedToCanonical(redactStored(row.collection, row.doc)),
      };
    }
  }
}
