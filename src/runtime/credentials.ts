// Which game a runtime URL's credential and secret belong to, in a stage; found by the secret's SHA-256.
//
// The URL names a credential, not a game. Secrets are 32 random bytes and only their SHA-256 is stored, so the
// hash finds the game through an index; comparing hashes by index lookup reveals nothing usable about the
// secret (the same reasoning as access tokens). A snapshot copied to another game keeps its secrets, so one
// secret may open several games: the credential is then written `{apiKey}.{name}` to say which.
import { hashCredentialSecret } from '../config/server-credentials.js';
import type { Db, Stage } from './doc-store.js';

const PREVIEW_SQL = `
  SELECT c.api_key FROM config_credentials c JOIN games g ON g.api_key = c.api_key AND g.deleted_at IS NULL
  WHERE c.name = $1 AND c.secret_hash = $2 AND ($3::text IS NULL OR c.api_key = $3) LIMIT 2`;

// Live accepts the credentials kept with the published snapshot (a credential made since is not Live yet).
const LIVE_SQL = `
  SELECT l.api_key FROM admin_snapshots s
    JOIN live_snapshots l ON l.api_key = s.api_key AND l.kind = 'game' AND l.snapshot_id = s.id
    JOIN games g ON g.api_key = l.api_key AND g.deleted_at IS NULL
  WHERE (s.secrets::jsonb -> 'credentialHashes') @> jsonb_build_object($1::text, $2::text)
    AND ($3::text IS NULL OR s.api_key = $3) LIMIT 2`;

/** `name` or `apiKey.name` (credential names have no dot; API keys neither). */
function parseCredential(credential: string): { apiKey: string | null; name: string } {
  const dot = credential.indexOf('.');
  return dot < 0
    ? { apiKey: null, name: credential }
    : { apiKey: credential.slice(0, dot), name: credential.slice(dot + 1) };
}

/** The game's API key, or null when no game (or more than one) has this credential with this secret. */
async function resolveCredential(
  db: Db,
  stage: Stage,
  credential: string,
  secret: string,
): Promise<string | null> {
  const { apiKey, name } = parseCredential(credential);
  const { rows } = await db.query<{ api_key: string }>(stage === 'live' ? LIVE_SQL : PREVIEW_SQL, [
    name,
    hashCredentialSecret(secret),
    apiKey,
  ]);
  return rows.length === 1 ? (rows[0]?.api_key ?? null) : null;
}

export interface CredentialCache {
  resolve(db: Db, stage: Stage, credential: string, secret: string): Promise<string | null>;
}

/** Successful resolutions are kept `maxAgeMs` (monotonic), so a reset or deleted secret stops working that fast. */
export function createCredentialCache(
  now: () => number,
  maxAgeMs = 1000,
  maxEntries = 10_000,
): CredentialCache {
  const hits = new Map<string, { apiKey: string; at: number }>();
  return {
    async resolve(db, stage, credential, secret) {
      const key = `${stage}\u0000${credential}\u0000${hashCredentialSecret(secret)}`;
      const hit = hits.get(key);
      if (hit && now() - hit.at < maxAgeMs) return hit.apiKey;
      const apiKey = await resolveCredential(db, stage, credential, secret);
      if (apiKey === null) {
        hits.delete(key);
        return null;
      }
      if (hits.size >= maxEntries) hits.clear();
      hits.set(key, { apiKey, at: now() });
      return apiKey;
    },
  };
}
