// What both kinds of backup share: the refusal error, atomic writes, and telling archive kinds apart.
import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A refusal or failure to tell the operator as it is (the message says what to do). */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** Writes `file` through a temporary file beside it, renamed into place only when `write` succeeded. */
export async function writeAtomically(file: string, write: (path: string) => Promise<void>): Promise<number> {
  const part = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.part`);
  try {
    await write(part);
    await rename(part, file);
  } finally {
    await rm(part, { force: true });
  }
  return (await stat(file)).size;
}

/** The first bytes of a file, to tell a pg_dump archive from a gzip one. */
export async function magicOf(file: string): Promise<Buffer> {
  const handle = await open(file, 'r').catch((e: NodeJS.ErrnoException) => {
    throw new BackupError(
      e.code === 'ENOENT' ? `${file} does not exist` : `${file} cannot be read (${e.code})`,
    );
  });
  try {
    const head = Buffer.alloc(5);
    const { bytesRead } = await handle.read(head, 0, 5, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
