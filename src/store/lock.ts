// Exclusive lock on the embedded data folder, so two processes never open one PGlite store at once.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `The data folder ${dir} is in use by another Playbase process (pid ${pid}). ` +
        'Stop that process, or point PLAYBASE_DATA_DIR at another folder.',
    );
    this.name = 'DataDirLockedError';
  }
}

/**
 * The state letter of a process on Linux (R, S, D, Z...), from /proc/<pid>/stat; undefined elsewhere. The
 * command name in parentheses may itself hold spaces and parentheses: the state follows the last ')'.
 */
function linuxProcessState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const end = stat.lastIndexOf(')');
    return end < 0 ? undefined : stat.slice(end + 2, end + 3) || undefined;
  } catch {
    return undefined;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM means the process exists but belongs to someone else: still alive.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A process killed with SIGKILL stays a zombie (Z; X while being reaped) until its parent waits for it, about
  // a second under a supervisor: signal 0 still reaches it, but it holds nothing and runs nothing. Where there
  // is no /proc (macOS), a process that answers signal 0 counts as alive.
  const state = linuxProcessState(pid);
  return state !== 'Z' && state !== 'X';
}

/**
 * Takes `<dir>/playbase.lock` with O_EXCL. A lock left by a process that no longer runs (kill -9, power loss)
 * or that is a zombie not yet reaped is stale and taken over; a live holder makes this throw
 * DataDirLockedError at once.
 */
const heldHere = new Set<string>();

export function lockDataDir(dir: string): () => void {
  const path = join(dir, 'playbase.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(path);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        heldHere.delete(path);
        rmSync(path, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
      // Our own pid counts as a holder only if this process took the lock: after a container restart the
      // new process often gets the old pid, and the old lock file is then stale.
      const live =
        holder === process.pid ? heldHere.has(path) : Number.isInteger(holder) && processAlive(holder);
      if (live) throw new DataDirLockedError(dir, holder);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`Could not lock ${dir}`);
}
