// Games: creation (the creator owns it), listing, the recycle bin (10 days) and endpoint discovery.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { createDefaultGroups } from '../auth/collaborators.js';
import { authErrors } from '../auth/errors.js';
import type { ClusterSettings } from '../settings.js';
import { withTransaction } from '../store/db.js';
import {
  type GameRow,
  insertGame,
  markDeleted,
  markRestored,
  purgeDeletedGames,
  renameGameRow,
  selectDeletedGames,
  selectGame,
} from '../store/games.js';
import type { RecordWrite } from './config-audit.js';
import { gameErrors } from './errors.js';

const RECYCLE_BIN_DAYS = 10;
const DAY_MS = 24 * 3600 * 1000;

export interface Game {
  apiKey: string;
  name: string;
  cluster: string;
  owner: string;
  created: string;
  deleted?: string;
}

function toGame(r: GameRow): Game {
  const g: Game = {
    apiKey: r.api_key,
    name: r.name,
    cluster: r.cluster,
    owner: r.owner,
    created: r.created_at.toISOString(),
  };
  if (r.deleted_at) g.deleted = r.deleted_at.toISOString();
  return g;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export function newApiKey(): string {
  const bytes = randomBytes(20);
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('');
}

export async function createGame(
  pool: pg.Pool,
  input: { name: string; cluster?: string | undefined },
  owner: string,
  registry: { clusters: Record<string, ClusterSettings>; defaultCluster: string },
  nowMs: number,
  audit?: RecordWrite,
): Promise<Game> {
  const { clusters } = registry;
  // A game stays on its cluster: moving one (its documents, its runtime data) is not offered.
  const cluster = input.cluster ?? registry.defaultCluster;
  if (!Object.hasOwn(clusters, cluster)) throw gameErrors.unknownCluster(cluster);
  const apiKey = newApiKey();
  return withTransaction(pool, async (client) => {
    const row = await insertGame(client, apiKey, {
      name: input.name,
      cluster,
      owner,
      createdAt: new Date(nowMs),
    });
    await createDefaultGroups(client, apiKey);
    // The new game's key is known here, in the transaction: its audit entry commits with it.
    await audit?.(client, apiKey);
    return toGame(row);
  });
}

export async function getGame(pool: pg.Pool, apiKey: string): Promise<Game> {
  const row = await selectGame(pool, apiKey);
  if (!row) throw authErrors.gameNotFound(apiKey);
  return toGame(row);
}

/** Renames the game; its audit entry (`audit`) commits with the change. */
export async function renameGame(
  pool: pg.Pool,
  apiKey: string,
  name: string,
  audit?: RecordWrite,
): Promise<Game> {
  return withTransaction(pool, async (client) => {
    const row = await renameGameRow(client, apiKey, name);
    if (!row) throw authErrors.gameNotFound(apiKey);
    await audit?.(client, apiKey);
    return toGame(row);
  });
}

/** Moves the game to the recycle bin; its audit entry (`audit`) commits with the change. */
export async function deleteGame(
  pool: pg.Pool,
  apiKey: string,
  nowMs: number,
  audit?: RecordWrite,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    if (!(await markDeleted(client, apiKey, new Date(nowMs)))) throw authErrors.gameNotFound(apiKey);
    await audit?.(client, apiKey);
  });
}

/** Games in the recycle bin that the user owns (newer than 10 days; older ones are purged). */
export async function listDeletedGames(pool: pg.Pool, owner: string, nowMs: number): Promise<Game[]> {
  await purgeRecycleBin(pool, nowMs);
  return (await selectDeletedGames(pool, owner)).map(toGame);
}

/** Brings the owner's game back from the recycle bin; its audit entry (`audit`) commits with the change. */
export async function restoreGame(
  pool: pg.Pool,
  apiKey: string,
  owner: string,
  nowMs: number,
  audit?: RecordWrite,
): Promise<Game> {
  await purgeRecycleBin(pool, nowMs);
  return withTransaction(pool, async (client) => {
    const row = await markRestored(client, apiKey, owner);
    if (!row) throw gameErrors.notDeleted(apiKey);
    await audit?.(client, apiKey);
    return toGame(row);
  });
}

/** Removes for good the games deleted more than 10 days ago (their groups and collaborators cascade). */
async function purgeRecycleBin(pool: pg.Pool, nowMs: number): Promise<number> {
  return purgeDeletedGames(pool, new Date(nowMs - RECYCLE_BIN_DAYS * DAY_MS));
}

function fill(template: string | null, apiKey: string, stage: 'live' | 'preview'): string | null {
  return template === null ? null : template.replaceAll('{apiKey}', apiKey).replaceAll('{stage}', stage);
}

export function endpointsOf(game: Game, clusters: Record<string, ClusterSettings>) {
  const c = Object.hasOwn(clusters, game.cluster) ? clusters[game.cluster] : undefined;
  if (!c) throw gameErrors.unknownCluster(game.cluster);
  return {
    liveNosql: fill(c.liveNosql, game.apiKey, 'live'),
    previewNosql: fill(c.previewNosql, game.apiKey, 'preview'),
    liveElasticSearch: fill(c.liveElasticSearch, game.apiKey, 'live'),
    previewElasticSearch: fill(c.previewElasticSearch, game.apiKey, 'preview'),
  };
}
