// The answer of the cluster feed (docs/topology.md): the current state of every entity changed after the cursor,
// or a page of the whole state. Read in one REPEATABLE READ transaction, so the cursor it answers and the rows it
// sends are of one snapshot; rows are sent whole, so sending one twice does no harm.
import type pg from 'pg';
import {
  type FeedSnapshot,
  readFeedSnapshot,
  selectChangedEntities,
  selectGameAccountNames,
  selectGameChildRows,
  selectGameKeysPage,
  selectReplicaAccounts,
  selectReplicaGames,
  selectReplicaKeys,
  withFeedSnapshot,
} from '../store/control-changes.js';
import { type Cursor, formatCursor } from './cursor.js';

/** Entities (or games of a full page) per answer; `more` says to ask again at once. */
export const FEED_PAGE = 200;

export interface FeedGame {
  apiKey: string;
  /** The games row as JSON text; null: the game is gone (a tombstone). */
  row: string | null;
  /** Child rows by table, for a game on the asking cluster; null for a game elsewhere (its row only). */
  children: Record<string, string[]> | null;
}

export interface FeedAnswer {
  cursor: string;
  more: boolean;
  /** A full synchronisation's page: the range of games it covers ((from, to], open ends null); else null. */
  full: { from: string | null; to: string | null } | null;
  /** keys and accounts list everything there is: the cluster removes the others. */
  complete: boolean;
  keys: string[];
  accounts: string[];
  deleted: { keys: string[]; accounts: string[] };
  games: FeedGame[];
}

/** True when the answer carries nothing (the long poll waits for a change then). */
export function isEmptyAnswer(a: FeedAnswer): boolean {
  return (
    !a.more &&
    !a.full &&
    a.keys.length + a.accounts.length + a.games.length === 0 &&
    a.deleted.keys.length + a.deleted.accounts.length === 0
  );
}

/** The log's bounds as the cursor sees them: an empty log is "up to 1" (migration 0012 starts at 2). */
function isStale(cursor: Cursor, snap: FeedSnapshot): boolean {
  const seq = BigInt(cursor.seq);
  const max = BigInt(snap.max ?? '1');
  const min = BigInt(snap.min ?? '2');
  // Pruned past the cursor, or a cursor from another (reset, restored) control database.
  return seq < min - 1n || seq > max;
}

export async function readFeedAnswer(
  pool: pg.Pool,
  cluster: string,
  cursor: Cursor | undefined,
  pageSize = FEED_PAGE,
): Promise<FeedAnswer> {
  return withFeedSnapshot(pool, async (client) => {
    const snap = await readFeedSnapshot(client);
    const now: Cursor = { seq: snap.max ?? '1', inFlight: snap.inFlight };
    const at = { client, cluster, pageSize };
    if (cursor?.fullAfter !== undefined) return fullPage(at, cursor, cursor.fullAfter);
    if (!cursor || isStale(cursor, snap)) return fullPage(at, now, null);
    return changesAfter(at, cursor, snap);
  });
}

/** Where an answer is read: the snapshot's client, the asking cluster, entities per answer. */
interface Reading {
  client: pg.PoolClient;
  cluster: string;
  pageSize: number;
}

async function changesAfter(
  { client, cluster, pageSize }: Reading,
  cursor: Cursor,
  snap: FeedSnapshot,
): Promise<FeedAnswer> {
  const changed = await selectChangedEntities(client, cursor.seq, cursor.inFlight, pageSize + 1);
  const more = changed.length > pageSize;
  const page = changed.slice(0, pageSize);
  const max = BigInt(snap.max ?? '1') > BigInt(cursor.seq) ? (snap.max as string) : cursor.seq;
  // A cut page resumes after its last change, still asking for the transactions of both cursors.
  const next: Cursor = more
    ? {
        seq: (page.at(-1) as { last: string }).last,
        inFlight: [...new Set([...cursor.inFlight, ...snap.inFlight])],
      }
    : { seq: max, inFlight: snap.inFlight };
  const keysOf = (kind: string) => page.filter((c) => c.entity === kind).map((c) => c.key);
  const entities = await readEntities(client, cluster, keysOf('game'), keysOf('account'), keysOf('key'));
  return { cursor: formatCursor(next), more, full: null, complete: false, ...entities };
}

/** One page of the whole state: every key and account on the first page, then games in api key order. */
async function fullPage(
  { client, cluster, pageSize }: Reading,
  base: Cursor,
  after: string | null,
): Promise<FeedAnswer> {
  const apiKeys = await selectGameKeysPage(client, after, pageSize + 1);
  const more = apiKeys.length > pageSize;
  const page = apiKeys.slice(0, pageSize);
  const to = more ? (page.at(-1) as string) : null;
  const first = after === null;
  const entities = await readEntities(client, cluster, page, first ? null : [], first ? null : []);
  const cursor = formatCursor(
    to === null ? { seq: base.seq, inFlight: base.inFlight } : { ...base, fullAfter: to },
  );
  return { cursor, more, full: { from: after, to }, complete: first, ...entities };
}

/** The rows of the entities (null: all accounts, all keys); the games' owners and collaborators come along. */
async function readEntities(
  client: pg.PoolClient,
  cluster: string,
  apiKeys: string[],
  usernames: string[] | null,
  kids: string[] | null,
): Promise<Pick<FeedAnswer, 'keys' | 'accounts' | 'deleted' | 'games'>> {
  const keys = await selectReplicaKeys(client, kids);
  const games = await selectReplicaGames(client, apiKeys);
  const withGames =
    usernames === null
      ? null
      : [...new Set([...usernames, ...(await selectGameAccountNames(client, apiKeys))])];
  const accounts = await selectReplicaAccounts(client, withGames);
  const here = games.filter((g) => g.cluster === cluster).map((g) => g.key);
  const children = new Map<string, Record<string, string[]>>(here.map((k) => [k, {}]));
  for (const c of await selectGameChildRows(client, here)) {
    const byTable = children.get(c.api_key) as Record<string, string[]>;
    byTable[c.tbl] = [...(byTable[c.tbl] ?? []), c.row];
  }
  const found = new Map(games.map((g) => [g.key, g.row]));
  const absent = (asked: string[] | null, rows: { key: string }[]) =>
    asked === null ? [] : asked.filter((k) => !rows.some((r) => r.key === k));
  return {
    keys: keys.map((k) => k.row),
    accounts: accounts.map((a) => a.row),
    deleted: { keys: absent(kids, keys), accounts: absent(usernames, accounts) },
    games: apiKeys.map((apiKey) => ({
      apiKey,
      row: found.get(apiKey) ?? null,
      children: children.get(apiKey) ?? null,
    })),
  };
}
