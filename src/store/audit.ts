// The audit_log table: who wrote what and when, with the configuration before and after; kept apart from
// snapshots. Writers pass their transaction's client, so an entry commits or rolls back with its write.
import type { Db } from './scope.js';

export type { Db };

export interface AuditInput {
  /** The game written to; absent for writes that concern no game (accounts, own password). */
  apiKey?: string | undefined;
  actor: string;
  /** basic, token or jwt: how the actor proved who they are. */
  credential?: string | undefined;
  /** Dotted name, area first: snapshot.publish, manage.screen.update, config.put, auth.post... */
  action: string;
  /** What was written: a snapshot id, a short code, the request path. */
  target?: string | undefined;
  method?: string | undefined;
  path?: string | undefined;
  status?: number | undefined;
  requestId?: string | undefined;
  before?: unknown;
  after?: unknown;
  /** Epoch milliseconds. */
  at: number;
}

export interface AuditEntry {
  id: string;
  apiKey: string | null;
  at: string;
  actor: string;
  credential: string | null;
  action: string;
  target: string | null;
  method: string | null;
  path: string | null;
  status: number | null;
  requestId: string | null;
  before?: unknown;
  after?: unknown;
}

interface AuditRow {
  id: string;
  api_key: string | null;
  at: Date;
  actor: string;
  credential: string | null;
  action: string;
  target: string | null;
  method: string | null;
  path: string | null;
  status: number | null;
  request_id: string | null;
  before: unknown;
  after: unknown;
}

// jsonb cannot hold undefined; null in the column means "not recorded".
const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/** Appends one entry; pass the transaction's client so the entry commits or rolls back with the write. */
export async function recordAudit(db: Db, entry: AuditInput): Promise<void> {
  await db.query(
    `INSERT INTO audit_log (api_key, at, actor, credential, action, target, method, path, status, request_id,
                            before, after)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12::jsonb)`,
    [
      entry.apiKey ?? null,
      new Date(entry.at),
      entry.actor,
      entry.credential ?? null,
      entry.action,
      entry.target ?? null,
      entry.method ?? null,
      entry.path ?? null,
      entry.status ?? null,
      entry.requestId ?? null,
      json(entry.before),
      json(entry.after),
    ],
  );
}

export interface AuditFilter {
  page?: number | undefined;
  pageSize?: number | undefined;
  actor?: string | undefined;
  /** An exact action, or an area prefix: "snapshot" matches snapshot.create, snapshot.publish... */
  action?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

export interface AuditPage {
  entries: AuditEntry[];
  page: number;
  pageSize: number;
  total: number;
}

export const AUDIT_PAGE_SIZE = 50;

/** One page (from 1) of a game's entries, newest first, filtered by actor, action and time range. */
export async function listAudit(db: Db, apiKey: string, query: AuditFilter): Promise<AuditPage> {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? AUDIT_PAGE_SIZE;
  const { where, params } = auditFilter(apiKey, query);
  const count = await db.query<{ n: string }>(`SELECT count(*) AS n FROM audit_log WHERE ${where}`, params);
  const { rows } = await db.query<AuditRow>(
    `SELECT * FROM audit_log WHERE ${where} ORDER BY at DESC, id DESC
     LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, pageSize, (page - 1) * pageSize],
  );
  return { entries: rows.map(toEntry), page, pageSize, total: Number(count.rows[0]?.n ?? 0) };
}

function auditFilter(apiKey: string, query: AuditFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [apiKey];
  const clauses = ['api_key = $1'];
  if (query.actor) {
    params.push(query.actor.toLowerCase());
    clauses.push(`lower(actor) = $${params.length}`);
  }
  if (query.action) {
    params.push(query.action);
    clauses.push(`(action = $${params.length} OR starts_with(action, $${params.length} || '.'))`);
  }
  const { since, until } = query;
  if (since) {
    params.push(since);
    clauses.push(`at >= $${params.length}`);
  }
  if (until) {
    params.push(until);
    clauses.push(`at <= $${params.length}`);
  }
  return { where: clauses.join(' AND '), params };
}

function toEntry(r: AuditRow): AuditEntry {
  const entry: AuditEntry = {
    id: r.id,
    apiKey: r.api_key,
    at: r.at.toISOString(),
    actor: r.actor,
    credential: r.credential,
    action: r.action,
    target: r.target,
    method: r.method,
    path: r.path,
    status: r.status,
    requestId: r.request_id,
  };
  if (r.before !== null) entry.before = r.before;
  if (r.after !== null) entry.after = r.after;
  return entry;
}

// Query parameters that may carry credentials; their values never reach the log.
const SECRET_PARAM = /token|secret|password|jwt|key/i;

/** The request path with credential-like query values replaced, so the log never holds a secret. */
export function redactPath(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) if (SECRET_PARAM.test(key)) params.set(key, 'REDACTED');
  const query = params.toString();
  return query ? `${url.slice(0, q)}?${query}` : url.slice(0, q);
}

// Keys of configuration documents that hold secrets (credentials, push keys); never copied into the log.
const SECRET_KEY = /secret|password|private_?key|keypem|sealed|token/i;

/** A deep copy with every secret-looking value replaced by "REDACTED". */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) && v !== null && typeof v !== 'object' ? 'REDACTED' : redactSecrets(v);
  }
  return out;
}
