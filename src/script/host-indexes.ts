// Collection indexes from scripts (ensureIndex, dropIndex, dropIndexByName, getIndexInfo): the nosql room's index
// core, the same the /mongo index routes run, on the executing game's stage. An index is DDL: on PostgreSQL it is
// built CONCURRENTLY on a connection of its own, outside the execution's transaction, and stays when the execution
// fails; such a build waits for every transaction that wrote documents, so it is refused once the execution has
// written. The embedded store (one connection) runs it on the execution's connection, in its transaction once open.
import { createCollection } from '../nosql/collections.js';
import { withDbErrors } from '../nosql/db-errors.js';
import { checkIndexName, createIndex, type DdlOptions, dropIndex, listIndexes } from '../nosql/indexes.js';
import type { Scope } from '../nosql/scope.js';
import { parseIndexKeys } from '../query/indexes.js';
import { type CollectionCall, fullName } from './host-collections.js';
import type { Session } from './session.js';

const EMBEDDED: DdlOptions = { concurrently: false, buildTimeoutMs: 10 * 60 * 1000 };

/** MongoDB's default name of an index: each field and direction joined by "_" (`level_-1_country_1`). */
function defaultName(keys: Record<string, unknown>): string {
  return Object.entries(keys)
    .map(([k, v]) => `${k}_${String(v)}`)
    .join('_');
}

export async function indexCall(session: Session, a: Record<string, unknown>): Promise<string | undefined> {
  const kind = a.kind as CollectionCall['kind'];
  const collection = fullName(kind, a.name);
  const scope: Scope = { game: session.gs.game, stage: session.gs.stage, collection };
  const { env } = session;
  const ddl = env.ddl ?? EMBEDDED;
  // Concurrent builds cannot run in a transaction: they take a connection of their own.
  const pool = ddl.concurrently ? env.pool : session.readPool();
  return withDbErrors(env.pool, scope, env.statementTimeoutMs, async () => {
    if (a.op === 'info') return JSON.stringify(await listIndexes(session.readPool(), scope));
    if (kind !== 'runtime')
      throw new Error(`the ${kind} collection ${String(a.name)} is read-only in scripts`);
    // A concurrent build waits for every transaction that wrote to the documents, this execution's included.
    if (ddl.concurrently && session.inTransaction())
      throw new Error('ensureIndex and dropIndex must come before the execution\u2019s first write');
    const keys = (a.keys ?? {}) as Record<string, unknown>;
    switch (a.op) {
      case 'ensure': {
        const name = checkIndexName(typeof a.indexName === 'string' ? a.indexName : defaultName(keys));
        if (!session.created.has(collection)) {
          await createCollection(pool, session.gs, collection, 'runtime', env.clock());
          if (ddl.concurrently) session.created.add(collection);
        }
        await createIndex(pool, scope, { name, keys: parseIndexKeys(keys), unique: a.unique === true }, ddl);
        return undefined;
      }
      case 'drop': {
        let name = a.indexName;
        if (typeof name !== 'string') {
          const wanted = JSON.stringify(parseIndexKeys(keys).map((k) => [k.path, k.dir]));
          const found = (await listIndexes(session.readPool(), scope)).find(
            (i) => JSON.stringify(Object.entries(i.key)) === wanted,
          );
          if (!found)
            throw new Error(`no index with keys ${JSON.stringify(keys).slice(0, 200)} on ${collection}`);
          name = found.name;
        }
        await dropIndex(pool, scope, checkIndexName(String(name)), ddl);
        return undefined;
      }
      default:
        throw new Error(`unknown index call ${String(a.op).slice(0, 50)}`);
    }
  });
}
