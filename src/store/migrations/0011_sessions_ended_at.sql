-- Per account, the last instant at which all its sessions were ended: disabling the account, a password change or
-- reset and "log out everywhere" move it (src/auth/sessions.ts). An access token or JWT issued at or before it is
-- refused. A JWT cannot be deleted like an access token, so without it re-enabling an account would bring back the
-- JWTs issued before it was disabled. Milliseconds, and strictly ordered: a move goes at least 1 ms past the last
-- one, and a token issued after it is stamped at least 1 ms past it, so the same clock millisecond (or a clock a
-- little behind another process's) cannot confuse before and after. NULL: never moved. A change notifies
-- `playbase_auth` through the accounts trigger of 0009, so every process drops its remembered account state.
ALTER TABLE {{schema}}.accounts ADD COLUMN IF NOT EXISTS sessions_ended_at timestamptz;
