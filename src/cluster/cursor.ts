// The feed's cursor, opaque to the cluster: `<seq>[.<xid>...][~<apiKey>]`. seq is the last change number the
// cluster has; the xids are the transactions in flight when that answer was read (their changes may land under
// lower numbers: they are asked for by transaction); `~<apiKey>` marks a full synchronisation under way, its
// games sent up to that key. `0` (or none) asks for the whole state.
import { clusterErrors } from './errors.js';

export interface Cursor {
  seq: string;
  inFlight: string[];
  /** A full synchronisation under way: the last game sent (undefined: the cursor is incremental). */
  fullAfter?: string;
}

const CURSOR = /^(\d{1,19})((?:\.\d{1,20}){0,2000})(?:~([A-Za-z0-9_-]{1,128}))?$/;

/** Undefined for a request of the whole state (no cursor, or 0); 400 CLUSTER_BAD_CURSOR for anything else. */
export function parseCursor(raw: string | undefined): Cursor | undefined {
  if (raw === undefined || raw === '' || raw === '0') return undefined;
  const m = CURSOR.exec(raw);
  if (!m) throw clusterErrors.badCursor('after must be a cursor answered by this feed, or 0');
  const seq = BigInt(m[1] as string).toString();
  const inFlight = (m[2] ?? '').split('.').filter(Boolean);
  return m[3] === undefined ? { seq, inFlight } : { seq, inFlight, fullAfter: m[3] };
}

export function formatCursor(cursor: Cursor): string {
  const base = [cursor.seq, ...cursor.inFlight].join('.');
  return cursor.fullAfter === undefined ? base : `${base}~${cursor.fullAfter}`;
}
