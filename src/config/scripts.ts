// Cloud Code scripts as configuration: listed, read, written (syntax and references checked) and deleted one at a
// time in the game's working copy (`~scripts` of the configuration document), which Preview runs.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { ScriptFolder } from '../types/config.js';
import { ids, withScripts } from './config-build.js';
import { changeConfig, type Db, loadConfigDoc } from './config-store.js';
import type { CloudScript, ConfigDoc } from './config-types.js';
import { scriptBytes } from './config-validate.js';
import { configErrors } from './errors.js';
import type { AuditWrap } from './game-lock.js';
import { assertScriptsParse } from './script-syntax.js';

export interface ScriptEntry {
  folder: string;
  shortCode: string;
  /** UTF-8 bytes of the source. */
  size: number;
  /** Lowercase hex SHA-256 of the source's UTF-8 bytes: compare versions without reading them. */
  sha256: string;
}

export const sha256Of = (source: string) => createHash('sha256').update(source, 'utf8').digest('hex');

export function entryOf(s: CloudScript): ScriptEntry {
  return {
    folder: s.folder,
    shortCode: s.shortCode,
    size: scriptBytes(s.script),
    sha256: sha256Of(s.script),
  };
}

export const scriptsOf = (doc: ConfigDoc): CloudScript[] => doc['~scripts'] ?? [];

/** Makes `scripts` the document's Cloud Code, in place (changeConfig hands the document to change). */
export function setScripts(doc: ConfigDoc, scripts: CloudScript[]): void {
  const next = withScripts(doc, scripts);
  if (next['~scripts']) doc['~scripts'] = next['~scripts'];
  else delete doc['~scripts'];
}

function findScript(doc: ConfigDoc, folder: ScriptFolder, shortCode: string): CloudScript {
  const found = scriptsOf(doc).find((s) => s.folder === folder && s.shortCode === shortCode);
  if (!found) throw configErrors.scriptNotFound(folder, shortCode);
  return found;
}

/** Every script of the working copy without its source, in folder then short code order. */
export async function listScripts(db: Db, apiKey: string): Promise<ScriptEntry[]> {
  return scriptsOf(await loadConfigDoc(db, apiKey)).map(entryOf);
}

export async function getScript(
  db: Db,
  apiKey: string,
  folder: ScriptFolder,
  shortCode: string,
): Promise<CloudScript> {
  return findScript(await loadConfigDoc(db, apiKey), folder, shortCode);
}

/**
 * Creates or replaces `folder/shortCode`. The source is parsed before the game is locked (SCRIPT_SYNTAX_ERROR with
 * line and column); its name must point at something (CONFIG_REFERENCE_INVALID) and the sizes stay bounded
 * (CONFIG_INVALID), checked with the whole document under the lock.
 */
export async function putScript(
  pool: pg.Pool,
  apiKey: string,
  folder: ScriptFolder,
  shortCode: string,
  source: string,
  audit?: AuditWrap,
): Promise<CloudScript> {
  const script: CloudScript = { folder, shortCode, script: source };
  await assertScriptsParse([{ script, field: 'script' }]);
  return changeConfig(
    pool,
    apiKey,
    (doc) => {
      const others = scriptsOf(doc).filter((s) => !(s.folder === folder && s.shortCode === shortCode));
      setScripts(doc, [...others, script]);
      return script;
    },
    audit,
  );
}

export async function deleteScript(
  pool: pg.Pool,
  apiKey: string,
  folder: ScriptFolder,
  shortCode: string,
  audit?: AuditWrap,
): Promise<void> {
  await changeConfig(
    pool,
    apiKey,
    (doc) => {
      const found = findScript(doc, folder, shortCode);
      setScripts(
        doc,
        scriptsOf(doc).filter((s) => s !== found),
      );
    },
    audit,
  );
}

/** The id a script is named by in CONFIG_IN_USE answers: `/~scripts/{folder}/{shortCode}`. */
export const scriptId = (s: { folder: string; shortCode: string }) => ids.script(s.folder, s.shortCode);
