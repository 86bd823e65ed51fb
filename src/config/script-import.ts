// Import and export of Cloud Code as a zip in the original platform's layout. An import makes the working copy's
// scripts those of the zip: files that pass are added or replace their script, scripts the zip does not hold are
// deleted, files that cannot be scripts are refused by name (the script of that name, if any, is kept).
import type pg from 'pg';
import { SCRIPT_FOLDERS, type ScriptFolder } from '../types/config.js';
import { changeConfig, type Db, loadConfigDoc } from './config-store.js';
import { type CloudScript, type ConfigDoc, SCRIPT_LIMITS } from './config-types.js';
import { indexConfig, scriptReferenceIssue, throwIfIssues, validateConfigDoc } from './config-validate.js';
import type { AuditWrap } from './game-lock.js';
import { syntaxProblem } from './script-syntax.js';
import { readScriptZip, writeScriptZip, type ZipFile } from './script-zip.js';
import { scriptsOf, setScripts } from './scripts.js';
import { listCredentials } from './server-credentials.js';

export interface Refusal {
  file: string;
  reason: string;
}

/** What an import did (or, with dryRun, would do): file names as in the zip's layout, `event/winRace.js`. */
export interface ImportResult {
  dryRun: boolean;
  added: string[];
  changed: string[];
  deleted: string[];
  unchanged: string[];
  refused: Refusal[];
}

const SHORT_CODE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const FOLDERS = new Set<string>(SCRIPT_FOLDERS);
const fileOf = (s: { folder: string; shortCode: string }) => `${s.folder}/${s.shortCode}.js`;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The working copy's scripts as a zip (the export). */
export async function exportScripts(db: Db, apiKey: string): Promise<Uint8Array> {
  return writeScriptZip(scriptsOf(await loadConfigDoc(db, apiKey)));
}

/** A zip of one folder holding the export layout (`scripts/event/x.js`) is read as the layout itself. */
function withoutCommonRoot(files: ZipFile[]): ZipFile[] {
  const roots = new Set(files.map((f) => (f.name.split('/').length >= 3 ? f.name.split('/')[0] : '')));
  const [root] = roots;
  if (roots.size !== 1 || !root || FOLDERS.has(root)) return files;
  return files.map((f) => ({ ...f, name: f.name.slice(root.length + 1) }));
}

/** A zip file as a script, or why it cannot be one (apart from references, which need the configuration). */
function scriptOfFile(f: ZipFile): CloudScript | string {
  const parts = f.name.split('/');
  if (parts.length !== 2) return 'not a file of a script folder (<folder>/<shortCode>.js)';
  const [folder = '', file = ''] = parts;
  if (!FOLDERS.has(folder)) return `folder ${folder} is not supported (${SCRIPT_FOLDERS.join(', ')})`;
  if (!file.endsWith('.js')) return 'not a .js file';
  const shortCode = file.slice(0, -3);
  if (!SHORT_CODE.test(shortCode))
    return 'the short code is not a letter or _ then letters, digits, _ or - (64 at most)';
  if (f.tooLarge !== undefined || !f.bytes)
    return `${f.tooLarge} bytes; a script holds at most ${SCRIPT_LIMITS.scriptBytes}`;
  let script: string;
  try {
    script = utf8.decode(f.bytes);
  } catch {
    return 'not UTF-8 text';
  }
  return { folder: folder as ScriptFolder, shortCode, script };
}

interface Candidates {
  scripts: CloudScript[];
  refused: Refusal[];
}

/** The zip's files that can be scripts, each parsed (one per turn of the event loop); the others refused. */
async function candidatesOf(zip: Buffer): Promise<Candidates> {
  const files = withoutCommonRoot(await readScriptZip(zip));
  const out: Candidates = { scripts: [], refused: [] };
  const seen = new Set<string>();
  for (const [i, f] of files.entries()) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    const s = scriptOfFile(f);
    if (typeof s === 'string') {
      out.refused.push({ file: f.name, reason: s });
      continue;
    }
    if (seen.has(fileOf(s))) {
      out.refused.push({ file: f.name, reason: 'appears more than once' });
      continue;
    }
    seen.add(fileOf(s));
    const problem = syntaxProblem(s.script);
    if (problem) {
      out.refused.push({ file: f.name, reason: `${problem.line}:${problem.column}: ${problem.message}` });
    } else out.scripts.push(s);
  }
  return out;
}

/**
 * The plan of an import against `doc`: scripts whose name points at nothing are refused; the rest replace the
 * document's scripts, keeping those whose file was refused. Applies it to `doc` and answers what changed.
 */
function plan(
  doc: ConfigDoc,
  c: Candidates,
  credentials: ReadonlySet<string>,
  dryRun: boolean,
): ImportResult {
  const index = indexConfig(doc);
  const result: ImportResult = {
    dryRun,
    added: [],
    changed: [],
    deleted: [],
    unchanged: [],
    refused: [...c.refused],
  };
  const held = new Map(scriptsOf(doc).map((s) => [fileOf(s), s]));
  const next = new Map<string, CloudScript>();
  for (const s of c.scripts) {
    const broken = scriptReferenceIssue(s, index, credentials, fileOf(s));
    if (broken) {
      result.refused.push({ file: fileOf(s), reason: broken.message });
      continue;
    }
    const before = held.get(fileOf(s));
    if (!before) result.added.push(fileOf(s));
    else (before.script === s.script ? result.unchanged : result.changed).push(fileOf(s));
    next.set(fileOf(s), s);
  }
  const refusedNames = new Set(result.refused.map((r) => r.file));
  for (const [file, s] of held) {
    if (next.has(file)) continue;
    if (refusedNames.has(file)) next.set(file, s);
    else result.deleted.push(file);
  }
  setScripts(doc, [...next.values()]);
  return result;
}

/**
 * Imports a zip into the working copy (one audited configuration write), or with `dryRun` answers the same
 * result without writing. SCRIPT_ZIP_INVALID for a hostile or unreadable zip; CONFIG_INVALID when the scripts
 * together pass the game's bounds. Both leave the game as it was.
 */
export async function importScripts(
  pool: pg.Pool,
  apiKey: string,
  zip: Buffer,
  dryRun: boolean,
  audit?: AuditWrap,
): Promise<ImportResult> {
  // Parsed before the game is locked: the lock is held only for the references and the write.
  const candidates = await candidatesOf(zip);
  const credentials = new Set((await listCredentials(pool, apiKey)).map((c) => c.name));
  if (dryRun) {
    const doc = await loadConfigDoc(pool, apiKey);
    const result = plan(doc, candidates, credentials, true);
    throwIfIssues(validateConfigDoc(doc, credentials));
    return result;
  }
  return changeConfig(pool, apiKey, (doc) => plan(doc, candidates, credentials, false), audit);
}
