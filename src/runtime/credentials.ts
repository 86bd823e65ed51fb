// Which game a runtime URL's credential and secret belong to, in a stage; found by the secret's SHA-256.
//
// The URL names a credential, not a game. Secrets are 32 random bytes and only their SHA-256 is stored, so the
// hash finds the game through an index; comparing hashes by index lookup reveals nothing usable about the
// secret (the same reasoning as access tokens). A snapshot copied to another game keeps its secrets, so one
// secret may open several games: the credential is then written `{apiKey}.{name}` to say which.
import { hashCredentialSecret } from '../config/server-credentials.js';
import { selectCredentialGames } from '../store/config-credentials.js';
import type { Db, Stage } from './doc-store.js';

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
  const games = await selectCredentialGames(db, { stage, game: apiKey }, name, hashCredentialSecret(secret));
  return games.length === 1 ? (games[0] ?? null) : null;
}

export interface CredentialCache {
  resolve(db: Db, stage: Stage, credential: string, secret: string): Promise<string | null>;
  /** Forgets every resolution (a cluster's replica changed some game's credentials). */
  clear(): void;
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
    clear: () => hits.clear(),
  };
}
