// Spark.runtimeCollection / metaCollection / systemCollection: each call runs the nosql room's document core
// (the same functions the /mongo routes call), always in the executing game's own stage: a script names a
// collection, never a game, so no name reaches another game's data. Writes go to runtime collections only, on
// the execution's transaction.
import {
  type CollectionEntry,
  createCollection,
  META_PREFIX,
  RUNTIME_PREFIX,
  SYSTEM_COLLECTIONS,
} from '../nosql/collections.js';
import { translateDbError, withDbErrors } from '../nosql/db-errors.js';
import {
  aggregateBody,
  countDocuments,
  type DocumentOp,
  findDocuments,
  insertBody,
  removeBody,
  saveBody,
  updateBody,
} from '../nosql/document-core.js';
import { distinctBody, findAndModifyBody } from '../nosql/find-and-modify.js';
import { checkCollectionName, type Scope } from '../nosql/scope.js';
import type { Session } from './session.js';

/** A runtime collection as the update verbs check it: every action allowed. */
const RUNTIME: CollectionEntry = {
  name: 'runtime',
  optionGroup: 'Runtime',
  actions: ['FIND', 'COUNT', 'INSERT', 'UPDATE', 'REMOVE', 'INDEX', 'AGGREGATE', 'DROP', 'STATS'],
};

const READS = new Set(['find', 'count', 'distinct', 'aggregate']);
const WRITES = new Set(['insert', 'save', 'update', 'remove', 'findAndModify']);

export interface CollectionCall {
  kind: 'runtime' | 'meta' | 'system';
  name: string;
  verb: string;
  body: unknown;
}

export function fullName(kind: CollectionCall['kind'], name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > 100)
    throw new Error('a collection name is a string of 1 to 100 characters');
  if (kind === 'system') {
    if (!(SYSTEM_COLLECTIONS as readonly string[]).includes(name))
      throw new Error(`no system collection ${name} (${SYSTEM_COLLECTIONS.join(', ')})`);
    return name;
  }
  const prefix = kind === 'runtime' ? RUNTIME_PREFIX : META_PREFIX;
  try {
    return checkCollectionName(name.startsWith(prefix) ? name : `${prefix}${name}`);
  } catch {
    throw new Error(`invalid collection name ${name.slice(0, 100)}`);
  }
}

/** A system collection's player documents never show their password hash. */
function withoutPasswords(text: string): string {
  const docs = JSON.parse(text) as Record<string, unknown>[];
  for (const d of docs) if (d && typeof d === 'object') delete d.password;
  return JSON.stringify(docs);
}

/** A findAndModify that may insert a document. */
function upserting(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { upsert?: unknown }).upsert === true;
}

export async function collectionCall(session: Session, args: CollectionCall): Promise<string | undefined> {
  const { env } = session;
  const full = fullName(args.kind, args.name);
  const scope: Scope = { game: session.gs.game, stage: session.gs.stage, collection: full };
  const now = env.clock();
  const input: DocumentOp = { scope, body: { value: args.body }, now };
  if (READS.has(args.verb)) {
    return withDbErrors(env.pool, scope, env.statementTimeoutMs, async () => {
      const db = session.readPool();
      switch (args.verb) {
        case 'find': {
          const text = await findDocuments(input, db, env.compute);
          return args.kind === 'system' && full === 'player' ? withoutPasswords(text) : text;
        }
        case 'count':
          return JSON.stringify(await countDocuments(input, db));
        case 'distinct':
          return distinctBody(input, db);
        default: {
          const text = await aggregateBody(input, db);
          return args.kind === 'system' && full === 'player' ? withoutPasswords(text) : text;
        }
      }
    });
  }
  if (!WRITES.has(args.verb)) throw new Error(`unknown collection call ${String(args.verb).slice(0, 50)}`);
  if (args.kind !== 'runtime')
    throw new Error(`the ${args.kind} collection ${args.name} is read-only in scripts`);
  // Each write under its own savepoint (ExecutionTransaction.write): a failed one (a duplicate _id) is undone
  // alone, and the script that catches its error goes on with the execution's transaction intact.
  try {
    return await session.write(async (tx) => {
      // The catalogue of created collections (nosql_collections) needs a row once a write may add a document:
      // before an insert, a save or an upserting findAndModify; after an update only when it upserted; never for
      // a remove. A write that only changes or removes existing documents costs no statement for it.
      const record = async () => {
        if (session.created.has(full)) return;
        session.created.add(full);
        await createCollection(tx.client, session.gs, full, 'runtime', now);
      };
      const recorded = session.created.has(full);
      try {
        switch (args.verb) {
          case 'insert':
            await record();
            return await insertBody(input, tx.pool);
          case 'save':
            await record();
            return await saveBody(input, tx.pool);
          case 'remove':
            return JSON.stringify(await removeBody(input, tx.pool));
          case 'update': {
            const out = await updateBody({ ...input, collection: RUNTIME }, tx.pool, env.compute);
            if (out.upsertedCount > 0) await record();
            return JSON.stringify(out);
          }
          default:
            if (upserting(args.body)) await record();
            return await findAndModifyBody({ ...input, collection: RUNTIME }, tx.pool);
        }
      } catch (e) {
        // The rollback of this write undoes the collection's record too: the next write records it again.
        if (!recorded) session.created.delete(full);
        throw e;
      }
    });
  } catch (e) {
    // Translated on the execution's connection, once the savepoint is rolled back (a unique index's name is read
    // there): the embedded store has one connection, which the transaction holds.
    const tx = await session.transaction(true);
    throw await translateDbError(e, tx.pool, scope, env.statementTimeoutMs);
  }
}
