-- Cloud Code that runs without a client request (docs/cloud-code.md, "Timers, scheduler and callbacks").
--
-- script_timers: the games whose stage has a system script that runs on a timer (GS_MINUTE, GS_HOURLY,
-- GS_DAILY) or on publish (GS_GAME_PUBLISH), kept by triggers on the configuration tables in the transaction that
-- writes them, so the timer loop reads one small table and a game without such scripts costs nothing.
CREATE TABLE IF NOT EXISTS {{schema}}.script_timers (
  api_key     text NOT NULL REFERENCES {{schema}}.games (api_key) ON DELETE CASCADE,
  stage       text NOT NULL CHECK (stage IN ('live', 'preview')),
  short_code  text NOT NULL,
  PRIMARY KEY (api_key, stage, short_code)
);
CREATE INDEX IF NOT EXISTS script_timers_by_script ON {{schema}}.script_timers (short_code);

-- One row per tick that ran: the first process to insert it runs the script (INSERT ... ON CONFLICT DO NOTHING).
CREATE TABLE IF NOT EXISTS {{schema}}.script_ticks (
  api_key     text NOT NULL REFERENCES {{schema}}.games (api_key) ON DELETE CASCADE,
  stage       text NOT NULL,
  short_code  text NOT NULL,
  tick        timestamptz NOT NULL,
  claimed_at  timestamptz NOT NULL,
  PRIMARY KEY (api_key, stage, short_code, tick)
);
CREATE INDEX IF NOT EXISTS script_ticks_age ON {{schema}}.script_ticks (tick);

-- GS_GAME_PUBLISH runs to do: one row per save (Preview) or publish (Live) of a configuration that has the
-- script, written by the triggers below; a process takes rows with FOR UPDATE SKIP LOCKED and deletes them.
CREATE TABLE IF NOT EXISTS {{schema}}.script_publish_queue (
  id         bigserial PRIMARY KEY,
  api_key    text NOT NULL REFERENCES {{schema}}.games (api_key) ON DELETE CASCADE,
  stage      text NOT NULL,
  queued_at  timestamptz NOT NULL DEFAULT now()
);

-- What each game stage's last queued GS_GAME_PUBLISH run was for (Preview: the document's md5; Live: the
-- publish_seq), so that a write that changes nothing queues nothing: a cluster's replica rewrites a game's rows
-- whenever anything of the game changes (src/store/replica.ts), and that is not a save.
CREATE TABLE IF NOT EXISTS {{schema}}.script_publish_seen (
  api_key  text NOT NULL REFERENCES {{schema}}.games (api_key) ON DELETE CASCADE,
  stage    text NOT NULL,
  seen     text NOT NULL,
  PRIMARY KEY (api_key, stage)
);

-- Queues a GS_GAME_PUBLISH run of the game stage unless the last one queued was for the same `seen`.
CREATE OR REPLACE FUNCTION {{schema}}.pb_queue_publish(key text, stage_name text, seen_now text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO {{schema}}.script_publish_seen AS p (api_key, stage, seen) VALUES (key, stage_name, seen_now)
    ON CONFLICT (api_key, stage) DO UPDATE SET seen = EXCLUDED.seen WHERE p.seen IS DISTINCT FROM EXCLUDED.seen;
  IF FOUND THEN
    INSERT INTO {{schema}}.script_publish_queue (api_key, stage) VALUES (key, stage_name);
  END IF;
END $$;

-- Spark.getScheduler().inSeconds: modules to run later, one row per job; a job with a key is unique per game
-- and stage (scheduling the key again moves it). Taken when due with FOR UPDATE SKIP LOCKED and deleted.
CREATE TABLE IF NOT EXISTS {{schema}}.script_jobs (
  id          bigserial PRIMARY KEY,
  api_key     text NOT NULL REFERENCES {{schema}}.games (api_key) ON DELETE CASCADE,
  stage       text NOT NULL,
  job_key     text,
  module      text NOT NULL,
  data        json NOT NULL,
  player_id   text,
  due_at      timestamptz NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS script_jobs_key ON {{schema}}.script_jobs (api_key, stage, job_key)
  WHERE job_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS script_jobs_due ON {{schema}}.script_jobs (due_at);
CREATE INDEX IF NOT EXISTS script_jobs_game ON {{schema}}.script_jobs (api_key, stage);

-- The timed and publish system scripts of a configuration's ~scripts.
CREATE OR REPLACE FUNCTION {{schema}}.pb_system_timers(scripts jsonb) RETURNS SETOF text
LANGUAGE sql IMMUTABLE AS $$
  SELECT DISTINCT s ->> 'shortCode' FROM jsonb_array_elements(
      CASE WHEN jsonb_typeof(scripts) = 'array' THEN scripts ELSE '[]'::jsonb END) AS s
   WHERE s ->> 'folder' = 'system'
     AND s ->> 'shortCode' IN ('GS_MINUTE', 'GS_HOURLY', 'GS_DAILY', 'GS_GAME_PUBLISH')
$$;

-- Preview: each write of the working copy.
CREATE OR REPLACE FUNCTION {{schema}}.pb_preview_timers() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM {{schema}}.script_timers WHERE api_key = NEW.api_key AND stage = 'preview';
  INSERT INTO {{schema}}.script_timers (api_key, stage, short_code)
    SELECT NEW.api_key, 'preview', t FROM {{schema}}.pb_system_timers(NEW.doc -> '~scripts') AS t;
  IF EXISTS (SELECT 1 FROM {{schema}}.script_timers
              WHERE api_key = NEW.api_key AND stage = 'preview' AND short_code = 'GS_GAME_PUBLISH') THEN
    PERFORM {{schema}}.pb_queue_publish(NEW.api_key, 'preview', md5(NEW.doc::text));
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS pb_preview_timers ON {{schema}}.game_configs;
CREATE TRIGGER pb_preview_timers AFTER INSERT OR UPDATE ON {{schema}}.game_configs
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_preview_timers();

-- Live: each publish (a new publish_seq) or unpublish of the game snapshot.
CREATE OR REPLACE FUNCTION {{schema}}.pb_live_timers() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.kind <> 'game' THEN RETURN NULL; END IF;
  IF TG_OP = 'UPDATE' AND NEW.publish_seq = OLD.publish_seq
     AND NEW.snapshot_id IS NOT DISTINCT FROM OLD.snapshot_id THEN RETURN NULL; END IF;
  DELETE FROM {{schema}}.script_timers WHERE api_key = NEW.api_key AND stage = 'live';
  IF NEW.snapshot_id IS NULL THEN RETURN NULL; END IF;
  INSERT INTO {{schema}}.script_timers (api_key, stage, short_code)
    SELECT NEW.api_key, 'live', t
      FROM {{schema}}.admin_snapshots AS a, {{schema}}.pb_system_timers(a.config::jsonb -> '~scripts') AS t
     WHERE a.id = NEW.snapshot_id;
  IF EXISTS (SELECT 1 FROM {{schema}}.script_timers
              WHERE api_key = NEW.api_key AND stage = 'live' AND short_code = 'GS_GAME_PUBLISH') THEN
    PERFORM {{schema}}.pb_queue_publish(NEW.api_key, 'live', NEW.publish_seq::text);
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS pb_live_timers ON {{schema}}.live_snapshots;
CREATE TRIGGER pb_live_timers AFTER INSERT OR UPDATE ON {{schema}}.live_snapshots
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.pb_live_timers();

-- The games that had such scripts before this migration.
INSERT INTO {{schema}}.script_timers (api_key, stage, short_code)
  SELECT c.api_key, 'preview', t FROM {{schema}}.game_configs AS c, {{schema}}.pb_system_timers(c.doc -> '~scripts') AS t
  ON CONFLICT DO NOTHING;
INSERT INTO {{schema}}.script_timers (api_key, stage, short_code)
  SELECT l.api_key, 'live', t
    FROM {{schema}}.live_snapshots AS l JOIN {{schema}}.admin_snapshots AS a ON a.id = l.snapshot_id,
         {{schema}}.pb_system_timers(a.config::jsonb -> '~scripts') AS t
   WHERE l.kind = 'game'
  ON CONFLICT DO NOTHING;
