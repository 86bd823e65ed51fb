// The runtime's player tables besides the player documents: runtime_devices (a device's player) and
// runtime_login_failures (the login lockout's counts), and the lock that serializes work on one name.
import type pg from 'pg';
import type { Db, GameScope } from './scope.js';

/** Serializes work on one name (or device) of one game and stage until the transaction ends. */
export async function lockName(
  client: pg.PoolClient,
  gs: GameScope,
  kind: string,
  name: string,
): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `playbase-runtime:${kind}:${gs.game}:${gs.stage}:${name}`,
  ]);
}

/** The player id a device logged in as, or undefined. */
export async function devicePlayer(db: Db, gs: GameScope, deviceId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ player_id: string }>(
    'SELECT player_id FROM runtime_devices WHERE game_id = $1 AND stage = $2 AND device_id = $3',
    [gs.game, gs.stage, deviceId],
  );
  return rows[0]?.player_id;
}

export async function recordDevice(db: Db, gs: GameScope, deviceId: string, playerId: string): Promise<void> {
  await db.query(
    `INSERT INTO runtime_devices (game_id, stage, device_id, player_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (game_id, stage, device_id) DO UPDATE SET player_id = EXCLUDED.player_id`,
    [gs.game, gs.stage, deviceId, playerId],
  );
}

/** The end of the name's lock (epoch ms; 0 when it is not locked or has no failures). */
export async function lockedUntil(db: Db, gs: GameScope, userName: string): Promise<number> {
  const { rows } = await db.query<{ locked_until: string }>(
    'SELECT locked_until FROM runtime_login_failures WHERE game_id = $1 AND stage = $2 AND user_name = $3',
    [gs.game, gs.stage, userName],
  );
  return Number(rows[0]?.locked_until ?? 0);
}

/** The name's failure row, made if missing and locked until the transaction ends. */
export async function lockFailures(
  client: pg.PoolClient,
  gs: GameScope,
  userName: string,
): Promise<{ failures: number; lockedUntil: number }> {
  await client.query(
    `INSERT INTO runtime_login_failures (game_id, stage, user_name, failures) VALUES ($1, $2, $3, 0)
     ON CONFLICT DO NOTHING`,
    [gs.game, gs.stage, userName],
  );
  const { rows } = await client.query<{ failures: number; locked_until: string }>(
    `SELECT failures, locked_until FROM runtime_login_failures
     WHERE game_id = $1 AND stage = $2 AND user_name = $3 FOR UPDATE`,
    [gs.game, gs.stage, userName],
  );
  const row = rows[0] ?? { failures: 0, locked_until: '0' };
  return { failures: row.failures, lockedUntil: Number(row.locked_until) };
}

export async function setFailures(
  client: pg.PoolClient,
  gs: GameScope,
  userName: string,
  state: { failures: number; lockedUntil: number },
): Promise<void> {
  await client.query(
    `UPDATE runtime_login_failures SET failures = $4, locked_until = $5
     WHERE game_id = $1 AND stage = $2 AND user_name = $3`,
    [gs.game, gs.stage, userName, state.failures, state.lockedUntil],
  );
}

export async function clearFailures(db: Db, gs: GameScope, userName: string): Promise<void> {
  await db.query('DELETE FROM runtime_login_failures WHERE game_id = $1 AND stage = $2 AND user_name = $3', [
    gs.game,
    gs.stage,
    userName,
  ]);
}
