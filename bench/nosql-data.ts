// The nosql bench's data: generated players, the HTTP calls that seed a game with them, and the request
// bodies of each measured case (the same bodies go to Playbase and to the bare baseline server).
export const ADMIN = { username: 'bench@playbase.local', password: 'bench-password-1' };
export const DOCS = Number(process.env.BENCH_NOSQL_DOCS ?? 100_000);
/** The collection with no index that the unindexed equality find scans (never more than the main one). */
export const SCAN_DOCS = Number(process.env.BENCH_NOSQL_SCAN_DOCS ?? Math.min(20_000, DOCS));
/** A runtime collection (script.*, created by a call): games keep their own data there. */
export const SCAN_COLLECTION = 'script.playerScan';
/** Documents a large find returns (Playbase's largest find limit). */
export const LARGE = 10_000;
export const COUNTRIES = [
  'US',
  'GB',
  'FR',
  'DE',
  'ES',
  'IT',
  'NL',
  'SE',
  'NO',
  'FI',
  'PL',
  'BR',
  'AR',
  'MX',
  'CA',
  'JP',
  'KR',
  'CN',
  'IN',
  'AU',
];
const TAGS = ['pvp', 'pve', 'guild', 'casual', 'pro', 'whale'];

export const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;
export const int = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

/** Player number i: userName user<i> and displayName "Player <i>" (the bare typed table relies on this). */
export function player(i: number): Record<string, unknown> {
  return {
    userName: `user${i}`,
    displayName: `Player ${i}`,
    currency1: int(0, 100_000),
    level: int(1, 100),
    country: pick(COUNTRIES),
    tags: TAGS.filter(() => Math.random() < 0.3),
    created: { $date: new Date(Date.UTC(2025, 0, 1) + int(0, 365 * 86_400) * 1000).toISOString() },
    scriptData: { xp: int(0, 1_000_000) },
  };
}

export async function call(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

export interface Game {
  apiKey: string;
  jwt: string;
  /** The player collection's URL (the documents routes are under it). */
  mongo: string;
  /** The unindexed collection's URL. */
  scan: string;
}

async function insertPlayers(collectionUrl: string, jwt: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 5000) {
    const batch = Array.from({ length: Math.min(5000, count - i) }, (_, k) => player(i + k));
    await call(`${collectionUrl}/insert`, 'POST', { 'x-svc-jwt': jwt }, batch);
  }
}

/**
 * A game with DOCS players (inserted through the API in arrays of 5,000) and indexes on displayName, level
 * and country; and SCAN_DOCS other players in a collection with no index.
 */
export async function seed(url: string): Promise<Game> {
  const basic = {
    authorization: `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`,
  };
  const { apiKey } = (await call(`${url}/restv2/games`, 'POST', basic, { name: 'nosql bench' })) as {
    apiKey: string;
  };
  const jwt = (
    (await call(`${url}/restv2/auth/game/${apiKey}/jwt?expireInSeconds=3600`, 'GET', basic)) as Record<
      string,
      string
    >
  )['X-SVC-JWT']!;
  const base = `${url}/preview/restv2/game/${apiKey}/mongo/collection`;
  const game = { apiKey, jwt, mongo: `${base}/player`, scan: `${base}/${SCAN_COLLECTION}` };
  const started = Date.now();
  await insertPlayers(game.mongo, jwt, DOCS);
  console.log(`seeded ${DOCS} players in ${Date.now() - started} ms`);
  const indexed = Date.now();
  for (const field of ['displayName', 'level', 'country']) {
    await call(`${game.mongo}/index/${field}_1`, 'POST', { 'x-svc-jwt': jwt }, { [field]: 1 });
  }
  console.log(`built 3 indexes in ${Date.now() - indexed} ms`);
  await call(`${base}/${SCAN_COLLECTION.slice('script.'.length)}/runtime`, 'POST', { 'x-svc-jwt': jwt }, {});
  await insertPlayers(game.scan, jwt, SCAN_DOCS);
  console.log(`seeded ${SCAN_DOCS} players in ${SCAN_COLLECTION} (no index)`);
  return game;
}

/** A measured case: its name, the Playbase verb on its collection, and a fresh request body per request. */
export interface Case {
  name: string;
  op: 'find' | 'count' | 'insert' | 'aggregate';
  body: () => unknown;
}

// Q1-Q5 keep their names, so that the figures compare with earlier bench/results/nosql.json.
export const QUERIES: Case[] = [
  {
    name: 'Q1 find by displayName',
    op: 'find',
    body: () => ({ query: { displayName: `Player ${int(0, DOCS - 1)}` } }),
  },
  {
    name: 'Q2 level > 90, sort level desc, limit 20',
    op: 'find',
    body: () => ({ query: { level: { $gt: 90 } }, sort: { level: -1 }, limit: 20 }),
  },
  { name: 'Q3 count country', op: 'count', body: () => ({ query: { country: pick(COUNTRIES) } }) },
  {
    name: 'Q4 country and level >= 50, limit 20, projection',
    op: 'find',
    body: () => ({
      query: { country: pick(COUNTRIES), level: { $gte: 50 } },
      limit: 20,
      fields: { displayName: 1, level: 1, country: 1 },
    }),
  },
  { name: 'Q5 insert one document', op: 'insert', body: () => player(DOCS + int(0, 1e9)) },
];

/** Issue 16's figure: a $match and a $group on plain field paths (runs as SQL), against a bare GROUP BY. */
export const AGGREGATE: Case = {
  name: 'aggregate $match level >= 50, $group by country: count, average currency1',
  op: 'aggregate',
  body: () => [
    { $match: { level: { $gte: 50 } } },
    { $group: { _id: '$country', n: { $sum: 1 }, avg: { $avg: '$currency1' } } },
  ],
};

/** The first LARGE players in _id order (no sort: Playbase reads in _id order). */
export const LARGE_FIND: Case = {
  name: `find returning ${LARGE} documents`,
  op: 'find',
  body: () => ({ query: {}, limit: LARGE }),
};

/** One player of the unindexed collection by userName: every document is tested. */
export const SCAN_FIND: Case = {
  name: `find by an unindexed field over ${SCAN_DOCS} documents`,
  op: 'find',
  body: () => ({ query: { userName: `user${int(0, SCAN_DOCS - 1)}` } }),
};
