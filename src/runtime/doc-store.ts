// The runtime's view of its documents (players, running totals, leaderboard mirrors): the tenant, the player id
// forms, and the store's statements on them (src/store/runtime-documents.ts).
import { type Doc, idKey, ObjectId, type Value } from '../query/values.js';
import type { Db } from '../store/scope.js';

export { insertDoc, readDoc, writeDoc } from '../store/runtime-documents.js';

export type { Db };
export type Stage = 'live' | 'preview';

/** One game's data in one stage: the tenant of every call here. */
export interface GameStage {
  game: string;
  stage: Stage;
}

export interface StoredDoc {
  key: string;
  doc: Doc;
}

/** The id key of a player id as requests carry it: 24 hex digits are an ObjectId, anything else a string. */
export function playerKey(playerId: string): string {
  return idKey(/^[0-9a-f]{24}$/.test(playerId) ? ObjectId.createFromHexString(playerId) : playerId);
}

/** The wire form of a document's _id, as a player id: an ObjectId's hex, a string as it is. */
export function idText(id: Value | undefined): string {
  if (id instanceof ObjectId) return id.toHexString();
  return typeof id === 'string' ? id : JSON.stringify(id ?? null);
}
