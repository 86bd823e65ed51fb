-- Accounts of the management API (portal users). User names are e-mail addresses, stored lower-case.
CREATE TABLE IF NOT EXISTS accounts (
  username       text PRIMARY KEY,
  country        text NOT NULL DEFAULT '',
  password_hash  text NOT NULL,
  is_admin       boolean NOT NULL DEFAULT false,
  disabled       boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
