// The game configuration in the control database: one validated document per game, written under the game's lock.
import type pg from 'pg';
import type { Static } from 'typebox';
import { authErrors } from '../auth/errors.js';
import { withSavepoint } from '../store/db.js';
import { readGameConfig, readStoredConfig, writeGameConfig } from '../store/game-configs.js';
import {
  buildEvent,
  buildIndexedType,
  buildLeaderboard,
  buildRunningTotal,
  canonicalDoc,
  type EventBody,
  ids,
  withScripts,
} from './config-build.js';
import { type ConfigDoc, type FullConfig, FullConfigInput } from './config-types.js';
import { type Issue, idIssues, shapeIssues, throwIfIssues, validateConfigDoc } from './config-validate.js';
import {
  type AuditWrap,
  bumpConfigVersion,
  changeGame,
  type Db,
  getConfigVersion,
  lockGame,
} from './game-lock.js';
import { assertScriptsParse } from './script-syntax.js';
import { listCredentials, replaceCredentials } from './server-credentials.js';

type FullConfigBody = Static<typeof FullConfigInput>;

export { changeGame, type Db, getConfigVersion } from './game-lock.js';
export {
  hashCredentialSecret,
  loadCredentialHash,
  loadCredentialHashes,
  verifyCredentialSecret,
} from './server-credentials.js';

/** The game's configuration document; 404 when the game does not exist or is in the recycle bin. */
export async function loadConfigDoc(db: Db, apiKey: string): Promise<ConfigDoc> {
  const row = await readGameConfig(db, apiKey);
  if (!row) throw authErrors.gameNotFound(apiKey);
  return canonicalDoc(row.doc);
}

/**
 * Applies `change` to the game's document under the game's lock; stores it only when the whole document still
 * keeps every rule (else CONFIG_INVALID / CONFIG_REFERENCE_INVALID and nothing changes), and raises the version.
 */
export async function changeConfig<T>(
  pool: pg.Pool,
  apiKey: string,
  change: (doc: ConfigDoc) => T,
  audit?: AuditWrap,
): Promise<T> {
  return changeGame(
    pool,
    apiKey,
    async (client) => {
      const doc = await loadConfigDoc(client, apiKey);
      const result = change(doc);
      throwIfIssues(validateConfigDoc(doc, await credentialNamesFor(client, apiKey, doc)));
      await writeGameConfig(client, apiKey, doc);
      return result;
    },
    audit,
  );
}

/** The game's server credential names when the document has callback scripts to check (else undefined). */
async function credentialNamesFor(db: Db, apiKey: string, doc: ConfigDoc): Promise<Set<string> | undefined> {
  if (!(doc['~scripts'] ?? []).some((s) => s.folder === 'callbacks')) return undefined;
  return new Set((await listCredentials(db, apiKey)).map((c) => c.name));
}

/** The whole configuration, as GET /config?full=true answers it: credentials by name, never their secrets. */
export async function loadFullConfig(db: Db, apiKey: string): Promise<FullConfig> {
  return fullConfigOf(db, apiKey, await loadConfigDoc(db, apiKey));
}

/** A canonical document as the whole configuration: with the game's credentials by name. */
export async function fullConfigOf(db: Db, apiKey: string, doc: ConfigDoc): Promise<FullConfig> {
  return { apiKey, ...doc, '~credentials': await listCredentials(db, apiKey) };
}

export interface ReplaceOptions {
  /**
   * Secret hashes to give credentials by name (a snapshot copied to another game keeps its secrets); they win
   * over the hashes the game holds now.
   */
  credentialHashes?: Record<string, string>;
  /** Writes the change's audit entry (config-audit.ts) on the same client, once the document is valid. */
  audit?: AuditWrap | undefined;
}

/**
 * Replaces the whole configuration with `input` (a FullConfig; its apiKey is ignored). Validated entirely
 * before anything is written; a bad document changes nothing (CONFIG_INVALID / CONFIG_REFERENCE_INVALID).
 * Credentials: a name the game has already keeps its secret; a new name gets an unseen secret (reset it to
 * learn one) unless `options.credentialHashes` gives its hash; names absent from the document are deleted.
 * Must run inside a transaction on `client` (withTransaction); it works under a savepoint, so a failure leaves
 * the caller's transaction usable. Raises the configuration version once.
 */
export async function replaceFullConfig(
  client: pg.PoolClient,
  apiKey: string,
  input: unknown,
  options: ReplaceOptions = {},
): Promise<FullConfig> {
  throwIfIssues(shapeIssues(FullConfigInput, input));
  const body = input as FullConfigBody;
  const doc: ConfigDoc = withScripts(
    {
      '~events': (body['~events'] ?? []).map(buildEvent),
      '~runningTotals': (body['~runningTotals'] ?? []).map(buildRunningTotal),
      '~leaderboards': (body['~leaderboards'] ?? []).map(buildLeaderboard),
      '~indexedTypes': (body['~indexedTypes'] ?? []).map(buildIndexedType),
    },
    body['~scripts'] ?? [],
  );
  const names = (body['~credentials'] ?? []).map((c) => c.name);
  throwIfIssues([
    ...documentIdIssues(body),
    ...validateConfigDoc(doc, new Set(names)),
    ...duplicateNames(names),
  ]);
  await assertNewScriptsParse(client, apiKey, body['~scripts'] ?? []);
  await withSavepoint(client, 'replace_full_config', async () => {
    await lockGame(client, apiKey);
    const write = async () => {
      await writeGameConfig(client, apiKey, doc);
      await replaceCredentials(client, apiKey, names, options.credentialHashes ?? {});
    };
    await (options.audit ? options.audit(client, apiKey, write) : write());
    await bumpConfigVersion(client, apiKey);
  });
  return loadFullConfig(client, apiKey);
}

/**
 * Parses the scripts of a whole document that the game does not hold already with the same source (a revert or a
 * PUT of what GET answered parses only what changed); 404 for an unknown game comes from the lock after.
 */
async function assertNewScriptsParse(
  client: pg.PoolClient,
  apiKey: string,
  scripts: FullConfigBody['~scripts'] & {},
): Promise<void> {
  if (scripts.length === 0) return;
  const row = await readGameConfig(client, apiKey);
  const held = new Map(
    (canonicalDoc(row?.doc)['~scripts'] ?? []).map((s) => [`${s.folder}/${s.shortCode}`, s.script]),
  );
  await assertScriptsParse(
    scripts
      .map((script, i) => ({ script, field: `~scripts.${i}.script` }))
      .filter(({ script: s }) => held.get(`${s.folder}/${s.shortCode}`) !== s.script),
  );
}

/** The collections that running totals and leaderboards make: `<shortCode>-runningTotal`, `<shortCode>-leaderboard`. */
export async function listConfiguredCollections(
  db: Db,
  apiKey: string,
): Promise<{ runningTotals: string[]; leaderboards: string[] }> {
  const doc = canonicalDoc(await readStoredConfig(db, apiKey));
  return {
    runningTotals: doc['~runningTotals'].map((r) => `${r.shortCode}-runningTotal`),
    leaderboards: doc['~leaderboards'].map((l) => `${l.shortCode}-leaderboard`),
  };
}

/** Top-level entities only, each by id, short code and name: a table of contents of the configuration. */
export async function loadConfigSummary(db: Db, apiKey: string) {
  const full = await loadFullConfig(db, apiKey);
  const version = await getConfigVersion(db, apiKey);
  const brief = (e: { '@id': string; shortCode: string; name: string }) => ({
    '@id': e['@id'],
    shortCode: e.shortCode,
    name: e.name,
  });
  return {
    apiKey,
    version,
    '~events': full['~events'].map(brief),
    '~runningTotals': full['~runningTotals'].map(brief),
    '~leaderboards': full['~leaderboards'].map(brief),
    '~indexedTypes': full['~indexedTypes'].map(brief),
    '~credentials': full['~credentials'],
  };
}

function documentIdIssues(body: FullConfigBody): Issue[] {
  const events = (body['~events'] ?? []).flatMap((e: EventBody, i) => [
    ...idIssues(e['@id'], ids.event(e.shortCode), `~events.${i}.@id`),
    ...(e['~attributes'] ?? []).flatMap((a, j) =>
      idIssues(a['@id'], ids.attribute(e.shortCode, a.shortCode), `~events.${i}.~attributes.${j}.@id`),
    ),
  ]);
  const others = [
    ...(body['~runningTotals'] ?? []).map((r, i) => [
      r['@id'],
      ids.runningTotal(r.shortCode),
      `~runningTotals.${i}`,
    ]),
    ...(body['~leaderboards'] ?? []).map((l, i) => [
      l['@id'],
      ids.leaderboard(l.shortCode),
      `~leaderboards.${i}`,
    ]),
    ...(body['~indexedTypes'] ?? []).map((t, i) => [
      t['@id'],
      ids.indexedType(t.shortCode),
      `~indexedTypes.${i}`,
    ]),
    ...(body['~credentials'] ?? []).map((c, i) => [c['@id'], ids.credential(c.name), `~credentials.${i}`]),
  ] as [string | undefined, string, string][];
  return [...events, ...others.flatMap(([given, expected, at]) => idIssues(given, expected, `${at}.@id`))];
}

function duplicateNames(names: string[]): Issue[] {
  const seen = new Set<string>();
  const issues: Issue[] = [];
  for (const n of names) {
    if (seen.has(n)) issues.push({ field: '~credentials', message: `${n} appears more than once` });
    seen.add(n);
  }
  return issues;
}
