// Cloud Code run without a client request: the games with timed system scripts (script_timers, kept by triggers
// on the configuration tables), the ticks claimed (script_ticks), the GS_GAME_PUBLISH runs to do
// (script_publish_queue) and the scheduler's jobs (script_jobs). Each claim is made in the database, so that
// several processes on one database run each tick and each job once between them.
import type { Db, GameScope, Stage } from './scope.js';

export interface TimerGame {
  game: string;
  stage: Stage;
}

/** The games (not in the recycle bin) whose stage has the system script; `scope.stage` null: both stages. */
export async function selectTimerGames(
  db: Db,
  scope: { stage: Stage | null },
  shortCode: string,
): Promise<TimerGame[]> {
  const { rows } = await db.query<{ api_key: string; stage: Stage }>(
    `SELECT t.api_key, t.stage FROM script_timers t JOIN games g ON g.api_key = t.api_key AND g.deleted_at IS NULL
      WHERE t.short_code = $1 AND ($2::text IS NULL OR t.stage = $2) ORDER BY t.api_key, t.stage`,
    [shortCode, scope.stage],
  );
  return rows.map((r) => ({ game: r.api_key, stage: r.stage }));
}

/**
 * Claims this tick of the system script for up to `limit` games that have it and whose tick nobody claimed yet:
 * the games claimed (this caller runs them; any other caller's insert of the same tick does nothing).
 */
export async function claimTicks(
  db: Db,
  scope: { stage: Stage | null },
  shortCode: string,
  tick: { at: Date; now: Date; limit: number },
): Promise<TimerGame[]> {
  const { rows } = await db.query<{ api_key: string; stage: Stage }>(
    `INSERT INTO script_ticks (api_key, stage, short_code, tick, claimed_at)
       SELECT t.api_key, t.stage, t.short_code, $3, $4 FROM script_timers t
         JOIN games g ON g.api_key = t.api_key AND g.deleted_at IS NULL
        WHERE t.short_code = $1 AND ($2::text IS NULL OR t.stage = $2)
          AND NOT EXISTS (SELECT 1 FROM script_ticks k WHERE k.api_key = t.api_key AND k.stage = t.stage
                             AND k.short_code = t.short_code AND k.tick = $3)
        ORDER BY t.api_key, t.stage LIMIT $5
     ON CONFLICT DO NOTHING
     RETURNING api_key, stage`,
    [shortCode, scope.stage, tick.at, tick.now, tick.limit],
  );
  return rows.map((r) => ({ game: r.api_key, stage: r.stage }));
}

/** Forgets ticks older than `before` (they can no longer be claimed); the rows removed. */
export async function deleteOldTicks(db: Db, scope: { stage: Stage | null }, before: Date): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM script_ticks WHERE tick < $1 AND ($2::text IS NULL OR stage = $2)',
    [before, scope.stage],
  );
  return rowCount ?? 0;
}

/** Takes (deletes) up to `limit` GS_GAME_PUBLISH runs to do; rows another process is taking are skipped. */
export async function takePublishRuns(
  db: Db,
  scope: { stage: Stage | null },
  limit: number,
): Promise<TimerGame[]> {
  const { rows } = await db.query<{ api_key: string; stage: Stage }>(
    `DELETE FROM script_publish_queue WHERE id IN (
       SELECT id FROM script_publish_queue WHERE ($1::text IS NULL OR stage = $1)
        ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING api_key, stage`,
    [scope.stage, limit],
  );
  return rows.map((r) => ({ game: r.api_key, stage: r.stage }));
}

export interface NewJob {
  key: string | null;
  module: string;
  /** JSON text. */
  data: string;
  playerId: string | null;
  dueAt: Date;
  now: Date;
}

/** The game stage's pending jobs. */
export async function countJobs(db: Db, scope: GameScope): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM script_jobs WHERE api_key = $1 AND stage = $2',
    [scope.game, scope.stage],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Adds a job; a job with the key of a pending one replaces it (module, data, player and time). */
export async function upsertJob(db: Db, scope: GameScope, job: NewJob): Promise<void> {
  await db.query(
    `INSERT INTO script_jobs (api_key, stage, job_key, module, data, player_id, due_at, created_at)
     VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8)
     ON CONFLICT (api_key, stage, job_key) WHERE job_key IS NOT NULL
     DO UPDATE SET module = EXCLUDED.module, data = EXCLUDED.data, player_id = EXCLUDED.player_id,
                   due_at = EXCLUDED.due_at, created_at = EXCLUDED.created_at`,
    [scope.game, scope.stage, job.key, job.module, job.data, job.playerId, job.dueAt, job.now],
  );
}

/** Cancels the pending job with this key; false when there was none. */
export async function deleteJob(db: Db, scope: GameScope, key: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM script_jobs WHERE api_key = $1 AND stage = $2 AND job_key = $3',
    [scope.game, scope.stage, key],
  );
  return Boolean(rowCount);
}

export interface DueJob extends TimerGame {
  id: string;
  key: string | null;
  module: string;
  data: unknown;
  playerId: string | null;
}

/**
 * Takes (deletes) up to `limit` jobs due at `now`, oldest first, at most `perGame` of one game stage (a game that
 * scheduled thousands of jobs for one moment takes turns with the others), of games not in the recycle bin; jobs
 * another process is taking are skipped, so each job is taken once.
 */
export async function takeDueJobs(
  db: Db,
  scope: { stage: Stage | null },
  now: Date,
  take: { limit: number; perGame: number },
): Promise<DueJob[]> {
  const { limit, perGame } = take;
  const { rows } = await db.query<{
    id: string;
    api_key: string;
    stage: Stage;
    job_key: string | null;
    module: string;
    data: unknown;
    player_id: string | null;
  }>(
    `DELETE FROM script_jobs WHERE id IN (
       SELECT j.id FROM script_jobs j JOIN games g ON g.api_key = j.api_key AND g.deleted_at IS NULL
        WHERE j.id IN (SELECT d.id FROM (
                SELECT id, row_number() OVER (PARTITION BY api_key, stage ORDER BY due_at, id) AS turn
                  FROM script_jobs WHERE due_at <= $1 AND ($2::text IS NULL OR stage = $2)) d
               WHERE d.turn <= $4)
        ORDER BY j.due_at, j.id LIMIT $3 FOR UPDATE OF j SKIP LOCKED)
     RETURNING id, api_key, stage, job_key, module, data, player_id`,
    [now, scope.stage, limit, perGame],
  );
  return rows.map((r) => ({
    id: String(r.id),
    game: r.api_key,
    stage: r.stage,
    key: r.job_key,
    module: r.module,
    data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data,
    playerId: r.player_id,
  }));
}
