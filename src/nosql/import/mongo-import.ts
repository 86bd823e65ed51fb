// The mongo import: documents back into the document store (where the export read them), runtime and meta collections
// made again, and each document of a configured leaderboard ranked again as the entry it mirrors.
import type pg from 'pg';
import { type MirrorRecord, rebuildRankBuckets, restoreEntries } from '../../runtime/leaderboard-restore.js';
import { compileRuntimeConfig, type LeaderboardPlan } from '../../runtime/runtime-config.js';
import { recordCollections } from '../../store/collections.js';
import { importDocuments } from '../../store/documents.js';
import type { GameScope } from '../scope.js';
import { loadStageEntities } from '../stage-config.js';
import { importErrors } from './errors.js';
import { type DocumentRecord, kindOf, parseDocumentLine } from './records.js';
import type { Importer } from './run-import.js';

/** The stage's leaderboards by collection name; none when the stage runs no configuration. */
async function configuredLeaderboards(
  pool: pg.Pool,
  scope: GameScope,
): Promise<Map<string, LeaderboardPlan>> {
  const staged = await loadStageEntities(pool, scope).catch((e: { code?: string }) => {
    // A nosql server on its own database has no configuration tables: no leaderboard is configured there.
    if (e.code === '42P01') return null;
    throw e;
  });
  if (!staged) return new Map();
  const runtime = compileRuntimeConfig(staged.version, staged.config);
  return new Map([...runtime.leaderboards.values()].map((lb) => [lb.collection, lb]));
}

const entryErrors = { bad: importErrors.badRecord, conflict: importErrors.conflict };

/** Inserts the documents; a key the stage already holds (or an earlier line gave) fails naming its line. */
async function insertDocuments(client: pg.PoolClient, scope: GameScope, records: DocumentRecord[]) {
  const rows = await importDocuments(client, scope, {
    collections: records.map((r) => r.collection),
    ids: records.map((r) => r.key),
    texts: records.map((r) => r.text),
  });
  if (rows.length === records.length) return;
  const written = new Set(rows.map((r) => `${r.collection}\u0000${r.id}`));
  const first = records.find((r) => !written.has(`${r.collection}\u0000${r.key}`));
  if (first) {
    throw importErrors.conflict(
      first.line,
      `collection ${first.collection} already holds a document with _id ${first.key.slice(0, 200)}`,
    );
  }
}

/** Runtime (script.*) and meta (meta.*) collections exist by their catalogue row, as the create calls make it. */
async function registerCollections(
  client: pg.PoolClient,
  scope: GameScope,
  records: DocumentRecord[],
  now: number,
) {
  const made = new Map<string, 'runtime' | 'meta'>();
  for (const r of records) {
    const kind = kindOf(r.collection);
    if (kind === 'runtime' || kind === 'meta') made.set(r.collection, kind);
  }
  await recordCollections(client, scope, made, new Date(now));
}

export async function openMongoImport(
  pool: pg.Pool,
  scope: GameScope,
  clock: () => number,
): Promise<Importer<DocumentRecord>> {
  const leaderboards = await configuredLeaderboards(pool, scope);
  const touched = new Set<string>();
  return {
    parse: parseDocumentLine,
    key: (r) => `${r.collection}\u0000${r.key}`,
    group: (r) => r.collection,
    bytes: (r) => r.text.length * 3,
    scopeOf: (r) => ({ ...scope, collection: r.collection }),
    async write(client, records) {
      await insertDocuments(client, scope, records);
      await registerCollections(client, scope, records, clock());
      const mirrors = new Map<LeaderboardPlan, MirrorRecord[]>();
      for (const r of records) {
        const lb = leaderboards.get(r.collection);
        if (!lb) continue;
        const list = mirrors.get(lb) ?? [];
        list.push({ line: r.line, doc: r.doc });
        mirrors.set(lb, list);
      }
      for (const [lb, list] of mirrors) {
        await restoreEntries(client, scope, lb, list, entryErrors);
        touched.add(lb.shortCode);
      }
    },
    async finish(client) {
      if (touched.size > 0) await rebuildRankBuckets(client, scope, [...touched]);
    },
  };
}
