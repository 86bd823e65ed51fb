// Reading the audit log: the query string's time range checked here, the rows read by the store.
import { type AuditPage, type Db, listAudit } from '../store/audit.js';
import { adminErrors } from './errors.js';

export interface AuditQuery {
  page?: number | undefined;
  pageSize?: number | undefined;
  actor?: string | undefined;
  /** An exact action, or an area prefix: "snapshot" matches snapshot.create, snapshot.publish... */
  action?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/** One page (from 1) of a game's entries, newest first, filtered by actor, action and time range. */
export function readAudit(db: Db, apiKey: string, query: AuditQuery): Promise<AuditPage> {
  const since = query.since === undefined ? undefined : parseInstant(query.since, 'since');
  const until = query.until === undefined ? undefined : parseInstant(query.until, 'until');
  if (since && until && since > until) throw adminErrors.auditRangeInvalid('since is after until');
  return listAudit(db, apiKey, { ...query, since, until });
}

/** ISO 8601 or epoch milliseconds; anything else is a client mistake, never "no filter". */
export function parseInstant(raw: string, field: string): Date {
  const ms = /^\d{1,15}$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (Number.isNaN(ms)) throw adminErrors.auditRangeInvalid(`${field} is not a date: ${raw}`);
  return new Date(ms);
}
