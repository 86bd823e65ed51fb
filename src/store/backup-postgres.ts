// PostgreSQL backups are pg_dump's own: `pg_dump --format=custom` writes them, `pg_restore` reads them back, so any
// PostgreSQL tool (and operator) can use them. The binaries come from the PostgreSQL client tools on the PATH.
import { spawn } from 'node:child_process';
import { chmod } from 'node:fs/promises';
import pg from 'pg';
import { BackupError, writeAtomically } from './backup-files.js';

const INSTALL_HINT =
  'install the PostgreSQL client tools (pg_dump and pg_restore, of the same major version as the server or newer)';
/** The last part of a tool's error output that a message repeats. */
const MAX_STDERR = 4000;

/**
 * The URL without its password, and the environment that carries it instead: a password on a command line is
 * visible to every user of the machine (ps), one in the environment only to the process and its owner.
 */
function connection(url: string, env: NodeJS.ProcessEnv): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { dbname: parsed.toString(), env: password ? { ...env, PGPASSWORD: password } : env };
}

/** Runs a PostgreSQL client tool; a missing binary or a failure is a BackupError with what the tool said. */
function run(tool: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-MAX_STDERR);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(
        new BackupError(
          e.code === 'ENOENT'
            ? `${tool} was not found on the PATH: ${INSTALL_HINT}`
            : `${tool} did not start (${e.message})`,
        ),
      );
    });
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new BackupError(`${tool} failed (${signal ?? `exit ${code}`}): ${stderr.trim() || 'no message'}`),
        );
    });
  });
}

/** pg_dump of the whole database (or of the one schema), consistent as of its start; runs beside the server. */
export async function backupPostgres(
  url: string,
  schema: string | undefined,
  file: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { dbname, env: toolEnv } = connection(url, env);
  const scope = schema ? [`--schema=${schema}`] : [];
  return writeAtomically(file, async (path) => {
    const args = ['--format=custom', '--no-password', ...scope, `--file=${path}`, `--dbname=${dbname}`];
    await run('pg_dump', args, toolEnv);
    // It holds every account and game: readable by its owner only, like the embedded store's.
    await chmod(path, 0o600);
  });
}

/** Tables already in the target: the schema's, or every schema's but PostgreSQL's own. */
async function countTables(url: string, schema: string | undefined): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (e) {
    throw new BackupError(`cannot connect to the database of DATABASE_URL (${(e as Error).message})`);
  }
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_tables
       WHERE ($1::text IS NULL AND schemaname NOT IN ('pg_catalog', 'information_schema')) OR schemaname = $1`,
      [schema ?? null],
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * pg_restore into an empty database, in one transaction (all or nothing). Objects are owned by the restoring role
 * and keep no grants of the source, so a backup restores into another server whose roles differ. With `force`,
 * what the backup holds is dropped first (`--clean --if-exists`); tables it does not hold are left.
 */
export async function restorePostgres(
  url: string,
  schema: string | undefined,
  file: string,
  force: boolean,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const tables = await countTables(url, schema);
  if (tables > 0 && !force) {
    throw new BackupError(
      `the target database holds ${tables} tables already: restore into an empty database, or pass --force to replace what the backup holds`,
    );
  }
  const { dbname, env: toolEnv } = connection(url, env);
  await run(
    'pg_restore',
    [
      '--no-password',
      '--exit-on-error',
      '--single-transaction',
      '--no-owner',
      '--no-privileges',
      ...(force ? ['--clean', '--if-exists'] : []),
      `--dbname=${dbname}`,
      file,
    ],
    toolEnv,
  );
}
