// Players: documents of the stage's `player` collection; registration, password login and device login.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { decoyHash, hashPassword, verifyPassword } from '../auth/passwords.js';
import { type Doc, ObjectId, storedText } from '../query/values.js';
import { withTransaction } from '../store/db.js';
import { touchPlayer } from '../store/player-admin.js';
import { findByUserName as findDocByUserName } from '../store/runtime-documents.js';
import { devicePlayer, lockName, recordDevice } from '../store/runtime-players.js';
import { type Db, type GameStage, idText, insertDoc, playerKey, readDoc } from './doc-store.js';

const PLAYER_COLLECTION = 'player';

export interface Player {
  id: string;
  doc: Doc;
}

/** The answer of the three login requests. authToken is for clients that read one; this API acts by playerId. */
export function loginAnswer(player: Player, newPlayer: boolean): Record<string, unknown> {
  return {
    authToken: randomUUID(),
    displayName: player.doc.displayName ?? null,
    newPlayer,
    userId: player.id,
  };
}

/** A player banned through the management API (docs/players.md): its logins answer DETAILS: LOCKED. */
export function isBanned(doc: Doc): boolean {
  return doc.banned !== undefined && doc.banned !== null && doc.banned !== false;
}

/** Records the time of a login as the player's lastSeen. */
export async function markSeen(db: Db, gs: GameStage, player: Player, nowMs: number): Promise<void> {
  await touchPlayer(db, gs, playerKey(player.id), storedText(new Date(nowMs)));
}

/** The name leaderboards show: the display name, else the user name. */
export function shownName(doc: Doc): string | null {
  const name = doc.displayName ?? doc.userName;
  return typeof name === 'string' ? name : null;
}

function newPlayerDoc(
  fields: { userName: string | null; displayName: string | null; password: string | null },
  nowMs: number,
): Doc {
  return {
    _id: new ObjectId(),
    userName: fields.userName,
    displayName: fields.displayName,
    password: fields.password,
    currency1: 0,
    currency2: 0,
    currency3: 0,
    currency4: 0,
    currency5: 0,
    currency6: 0,
    scriptData: {},
    externalIds: {},
    created: new Date(nowMs),
    lastSeen: new Date(nowMs),
  };
}

async function insertPlayer(db: Db, gs: GameStage, doc: Doc): Promise<Player> {
  if (!(await insertDoc(db, gs, PLAYER_COLLECTION, doc))) throw new Error('player id collision');
  return { id: idText(doc._id), doc };
}

export async function findPlayer(db: Db, gs: GameStage, playerId: string): Promise<Player | undefined> {
  const doc = await readDoc(db, gs, PLAYER_COLLECTION, playerKey(playerId));
  return doc ? { id: playerId, doc } : undefined;
}

async function findByUserName(db: Db, gs: GameStage, userName: string): Promise<Player | undefined> {
  const doc = await findDocByUserName(db, gs, PLAYER_COLLECTION, userName);
  return doc ? { id: idText(doc._id), doc } : undefined;
}

/** A new player with a user name; undefined when the name is taken in this game and stage. */
export async function registerPlayer(
  pool: pg.Pool,
  gs: GameStage,
  fields: { userName: string; password: string; displayName: string },
  nowMs: number,
): Promise<Player | undefined> {
  const password = await hashPassword(fields.password);
  return withTransaction(pool, async (client) => {
    await lockName(client, gs, 'user', fields.userName);
    if (await findByUserName(client, gs, fields.userName)) return undefined;
    return insertPlayer(client, gs, newPlayerDoc({ ...fields, password }, nowMs));
  });
}

/** The player whose user name and password these are; undefined otherwise (the timing does not tell which). */
export async function checkPassword(
  db: Db,
  gs: GameStage,
  userName: string,
  password: string,
): Promise<Player | undefined> {
  const player = await findByUserName(db, gs, userName);
  const stored = typeof player?.doc.password === 'string' ? player.doc.password : await decoyHash();
  const ok = await verifyPassword(password, stored);
  return ok && player ? player : undefined;
}

/** The device's player, made on the device's first login (or again when its document was removed). */
export async function deviceLogin(
  pool: pg.Pool,
  gs: GameStage,
  deviceId: string,
  displayName: string | null,
  nowMs: number,
): Promise<{ player: Player; newPlayer: boolean }> {
  return withTransaction(pool, async (client) => {
    await lockName(client, gs, 'device', deviceId);
    const playerId = await devicePlayer(client, gs, deviceId);
    const known = playerId === undefined ? undefined : await findPlayer(client, gs, playerId);
    if (known) return { player: known, newPlayer: false };
    const player = await insertPlayer(
      client,
      gs,
      newPlayerDoc({ userName: null, displayName, password: null }, nowMs),
    );
    await recordDevice(client, gs, deviceId, player.id);
    return { player, newPlayer: true };
  });
}
