// The cluster feed's answers, read and applied without HTTP: a whole state sent in pages reaches a replica equal to
// the control side (and removes what the control side no longer has); a change numbered before another but
// committed after it is still sent (the cursor asks for the transactions that were in flight).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyFeedAnswer } from '../../src/cluster/apply.js';
import { parseCursor } from '../../src/cluster/cursor.js';
import { type FeedAnswer, readFeedAnswer } from '../../src/cluster/feed.js';
import type { Store } from '../../src/store/db.js';
import { writeGameConfig } from '../../src/store/game-configs.js';
import { createGame, createUser, type User } from '../auth/helpers.js';
import { freshStore, startTestServer, TEST_DATABASE_URL, type TestServer } from '../harness.js';

type Fresh = Awaited<ReturnType<typeof freshStore>>;

async function gameKeys(store: Store): Promise<string[]> {
  const { rows } = await store.pool.query<{ api_key: string }>('SELECT api_key FROM games ORDER BY api_key');
  return rows.map((r) => r.api_key);
}

/** Asks and applies until an answer says there is no more; returns the answers and the last cursor. */
async function follow(control: TestServer, replica: Store, after: string | undefined, pageSize: number) {
  const answers: FeedAnswer[] = [];
  let cursor = after;
  do {
    const answer = await readFeedAnswer(control.store.pool, 'local', parseCursor(cursor), pageSize);
    expect((await applyFeedAnswer(replica.pool, answer, cursor ?? '0')).applied).toBe(true);
    answers.push(answer);
    cursor = answer.cursor;
  } while (answers.at(-1)?.more);
  return { answers, cursor: cursor as string };
}

describe('cluster feed: pages, tombstones and late commits', () => {
  let control: TestServer;
  let replica: Fresh;
  let owner: User;
  let cursor: string;

  beforeAll(async () => {
    control = await startTestServer({ PLAYBASE_ROLES: 'auth,config' });
    replica = await freshStore();
    owner = await createUser(control, `pager-${randomBytes(4).toString('hex')}@feed.test`);
    for (const name of ['one', 'two', 'three']) await createGame(control, owner, name);
  }, 60_000);

  afterAll(async () => {
    await control?.close();
    await replica?.drop();
  });

  it('the whole state in pages of one game → the replica holds every game, and no private key or password', async () => {
    const { answers, cursor: last } = await follow(control, replica.store, undefined, 1);
    cursor = last;
    expect(answers.length).toBeGreaterThanOrEqual(3);
    expect(answers.slice(0, -1).every((a) => a.more && a.full !== null)).toBe(true);
    expect(answers[0]?.complete).toBe(true);
    expect(await gameKeys(replica.store)).toEqual(await gameKeys(control.store));
    const { rows } = await replica.store.pool.query<{ hash: string }>(
      'SELECT password_hash AS hash FROM accounts WHERE username = $1',
      [owner.username],
    );
    expect(rows).toEqual([{ hash: '!' }]);
    // The replica's own writes are not changes (its triggers skip the applier's transactions).
    const logged = await replica.store.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM control_changes',
    );
    expect(logged.rows).toEqual([{ n: 0 }]);
  });

  it('a full synchronisation removes a game the control side does not have', async () => {
    await replica.store.pool.query(
      "INSERT INTO games (api_key, name, owner) VALUES ('zz-ghost', 'ghost', $1)",
      [owner.username],
    );
    // A cluster that lost its position asks for the whole state again.
    await replica.store.pool.query("UPDATE replica_cursor SET cursor = '0'");
    await follow(control, replica.store, '0', 2);
    expect(await gameKeys(replica.store)).toEqual(await gameKeys(control.store));
  });

  it('changes after the cursor, one entity a page → each game once, then nothing', async () => {
    const a = await createGame(control, owner, 'four');
    const b = await createGame(control, owner, 'five');
    const { answers, cursor: last } = await follow(control, replica.store, cursor, 1);
    const sent = answers.flatMap((x) => x.games.map((g) => g.apiKey));
    expect(sent).toEqual(expect.arrayContaining([a, b]));
    expect(answers.every((x) => x.full === null)).toBe(true);
    expect(await gameKeys(replica.store)).toEqual(await gameKeys(control.store));
    const again = await readFeedAnswer(control.store.pool, 'local', parseCursor(last));
    expect(again.games).toEqual([]);
    // An answer to a request from a position the replica has left (another process applied first) is dropped.
    const late = await readFeedAnswer(control.store.pool, 'local', parseCursor(cursor));
    expect(await applyFeedAnswer(replica.store.pool, late, cursor)).toEqual({
      applied: false,
      games: [a, b],
      meta: [],
    });
    cursor = last;
  });

  it.skipIf(!TEST_DATABASE_URL)(
    'a change numbered first but committed last → sent by the next answer (PostgreSQL: two connections)',
    async () => {
      const [early, late] = (await gameKeys(control.store)).slice(0, 2) as [string, string];
      const slow = await control.store.pool.connect();
      try {
        await slow.query('BEGIN');
        await slow.query("UPDATE games SET name = 'renamed late' WHERE api_key = $1", [early]);
        await control.store.pool.query("UPDATE games SET name = 'renamed now' WHERE api_key = $1", [late]);
        const first = await readFeedAnswer(control.store.pool, 'local', parseCursor(cursor));
        expect(first.games.map((g) => g.apiKey)).toEqual([late]);
        await slow.query('COMMIT');
        const second = await readFeedAnswer(control.store.pool, 'local', parseCursor(first.cursor));
        expect(second.games.map((g) => [g.apiKey, JSON.parse(g.row as string).name])).toEqual([
          [early, 'renamed late'],
        ]);
      } finally {
        slow.release();
      }
    },
  );
});

describe('cluster feed: Cloud Code scripts and meta collections', () => {
  let control: TestServer;
  let replica: Fresh;
  let game: string;
  let cursor: string | undefined;
  const metaRows = (store: Store, stage: string) =>
    store.pool
      .query<{ collection: string; doc: unknown }>(
        'SELECT collection, doc FROM nosql_documents WHERE game_id = $1 AND stage = $2 ORDER BY collection, id',
        [game, stage],
      )
      .then((r) => r.rows);
  const catchUp = async () => {
    cursor = (await follow(control, replica.store, cursor, 200)).cursor;
  };

  beforeAll(async () => {
    control = await startTestServer({ PLAYBASE_ROLES: 'auth,config' });
    replica = await freshStore();
    const owner = await createUser(control, `scripts-${randomBytes(4).toString('hex')}@feed.test`);
    game = await createGame(control, owner, 'scripted');
    await catchUp();
  }, 60_000);

  afterAll(async () => {
    await control?.close();
    await replica?.drop();
  });

  it("'~scripts' in the working configuration and in the Live snapshot → carried to the replica untouched", async () => {
    const scripts = [
      { folder: 'event', shortCode: 'SCORE', script: 'var s = "é\u2028\n\t\\";\n// {"b":1,"a":2}\n' },
      { folder: 'module', shortCode: 'lib', script: '' },
    ];
    const doc = {
      '~events': [],
      '~runningTotals': [],
      '~leaderboards': [],
      '~indexedTypes': [],
      '~scripts': scripts,
    };
    const db = control.store.pool;
    await writeGameConfig(db, game, doc as never);
    const config = `{"~scripts": ${JSON.stringify(scripts)}, "~events": []}`;
    await db.query(
      `INSERT INTO admin_snapshots (id, api_key, kind, created_at, created_by, config)
       VALUES ('snap-scripts', $1, 'game', now(), 'test', $2::json)`,
      [game, config],
    );
    await db.query(
      `INSERT INTO live_snapshots (api_key, kind, snapshot_id, published_at) VALUES ($1, 'game', 'snap-scripts', now())`,
      [game],
    );
    await catchUp();
    const working = await replica.store.pool.query<{ doc: Record<string, unknown> }>(
      'SELECT doc FROM game_configs WHERE api_key = $1',
      [game],
    );
    expect(working.rows[0]?.doc['~scripts']).toEqual(scripts);
    const live = await replica.store.pool.query<{ config: string }>(
      "SELECT config::text AS config FROM admin_snapshots WHERE id = 'snap-scripts'",
    );
    // json, not jsonb: the snapshot's text (key order, spacing, escapes) is the control side's, byte for byte.
    expect(live.rows[0]?.config).toBe(config);
  });

  it('a publish → the Live meta collections of the snapshot written on the replica; a restore → Preview', async () => {
    const meta = (name: string) => ({
      collections: [`meta.${name}`],
      documents: [{ collection: `meta.${name}`, id: '1', doc: { _id: '1', name } }],
      indexes: [],
    });
    const db = control.store.pool;
    await db.query(
      `INSERT INTO admin_snapshots (id, api_key, kind, created_at, created_by, config, meta)
       VALUES ('snap-meta', $1, 'game', now(), 'test', '{}', $2::json)`,
      [game, JSON.stringify(meta('items'))],
    );
    await db.query(
      `UPDATE live_snapshots SET snapshot_id = 'snap-meta', publish_seq = publish_seq + 1
       WHERE api_key = $1 AND kind = 'game'`,
      [game],
    );
    await catchUp();
    expect(await metaRows(replica.store, 'live')).toEqual([
      { collection: 'meta.items', doc: { _id: '1', name: 'items' } },
    ]);
    expect(await metaRows(replica.store, 'preview')).toEqual([]);
    // Preview documents written on the cluster stay until a revert or copy restores others.
    await replica.store.pool.query(
      `INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES ($1, 'preview', 'meta.mine', 'x', '{"_id":"x"}')`,
      [game],
    );
    await db.query(
      `INSERT INTO preview_meta_restores (api_key, seq, meta, at) VALUES ($1, 1, $2::json, now())`,
      [game, JSON.stringify(meta('restored'))],
    );
    await catchUp();
    expect(await metaRows(replica.store, 'preview')).toEqual([
      { collection: 'meta.restored', doc: { _id: '1', name: 'restored' } },
    ]);
    // The same restore sent again (a whole-state synchronisation) is not applied twice.
    await replica.store.pool.query(
      `INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES ($1, 'preview', 'meta.mine', 'y', '{"_id":"y"}')`,
      [game],
    );
    // As when the log was pruned past the cluster's cursor: the whole state again.
    await replica.store.pool.query("UPDATE replica_cursor SET cursor = '0'");
    cursor = undefined;
    await catchUp();
    expect((await metaRows(replica.store, 'preview')).map((r) => r.collection)).toEqual([
      'meta.mine',
      'meta.restored',
    ]);
    expect(await metaRows(replica.store, 'live')).toHaveLength(1);
  });
});

describe('cluster feed: what a Live snapshot carries', () => {
  it("a Live snapshot's row → every column of the table, its secrets without the sealed push credentials", async () => {
    const control = await startTestServer({ PLAYBASE_ROLES: 'auth,config' });
    try {
      const owner = await createUser(control, `sealer-${randomBytes(4).toString('hex')}@feed.test`);
      const game = await createGame(control, owner, 'sealed');
      const db = control.store.pool;
      await db.query(
        `INSERT INTO admin_snapshots (id, api_key, kind, created_at, created_by, config, secrets)
       VALUES ('snap-sealed', $1, 'game', now(), 'test', '{"b": 1, "a": 2}', $2)`,
        [game, JSON.stringify({ credentialHashes: { server: 'h' }, pushSealed: 'sealed-blob' })],
      );
      await db.query(
        `INSERT INTO live_snapshots (api_key, kind, snapshot_id, published_at) VALUES ($1, 'game', 'snap-sealed', now())`,
        [game],
      );
      const answer = await readFeedAnswer(db, 'local', parseCursor(undefined), 1000);
      const rows = answer.games.find((g) => g.apiKey === game)?.children?.admin_snapshots ?? [];
      expect(rows).toHaveLength(1);
      const row = JSON.parse(rows[0]!) as Record<string, unknown>;
      expect(row.secrets).toEqual({ credentialHashes: { server: 'h' } });
      expect(rows[0]).toContain('"config":{"b": 1, "a": 2}');
      const columns = await db.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = 'admin_snapshots' ORDER BY ordinal_position`,
      );
      expect(Object.keys(row)).toEqual(columns.rows.map((c) => c.name));
    } finally {
      await control.close();
    }
  });
});
