// What every request handler shares: its environment, its input, its answer, and readers of request fields.
import type pg from 'pg';
import type { Metrics } from '../metrics/metrics.js';
import type { ConfigCache } from './config-cache.js';
import type { GameStage, Stage } from './doc-store.js';
import type { FieldErrors } from './event-attributes.js';
import type { LockoutPolicy } from './login-lockout.js';

export interface RuntimeEnv {
  pool: pg.Pool;
  stage: Stage;
  /** Epoch ms: `when`, resets and lockouts follow it (tests move it). */
  clock: () => number;
  configs: ConfigCache;
  lockout: LockoutPolicy;
  metrics: Pick<Metrics, 'runtimeRequests' | 'leaderboardWrites'>;
}

export interface RequestInput {
  env: RuntimeEnv;
  gs: GameStage;
  body: Record<string, unknown>;
  /** Set by the management API (src/players) reading for an administrator: a banned player is not refused. */
  admin?: boolean;
}

/** A request's own fields (besides @class and requestId), or its errors in the platform's form. */
export type Answer = { error: FieldErrors } | Record<string, unknown>;

export type RequestHandler = (input: RequestInput) => Promise<Answer>;

export const fail = (field: string, code: string): Answer => ({ error: { [field]: code } });

/** A required or optional non-empty string field; a wrong type is INVALID, absence REQUIRED (when required). */
export function readString(
  body: Record<string, unknown>,
  field: string,
  required: boolean,
): { value: string | undefined } | { error: Answer } {
  const v = Object.hasOwn(body, field) ? body[field] : undefined;
  if (v === undefined || v === null || v === '') {
    return required ? { error: fail(field, 'REQUIRED') } : { value: undefined };
  }
  if (typeof v !== 'string' || v.length > 1024 || v.includes('\u0000'))
    return { error: fail(field, 'INVALID') };
  return { value: v };
}

/** An optional whole number in [min, max]; absent gives the fallback. */
export function readCount(
  body: Record<string, unknown>,
  field: string,
  fallback: number,
  max: number,
): { value: number } | { error: Answer } {
  const v = Object.hasOwn(body, field) ? body[field] : undefined;
  if (v === undefined || v === null) return { value: fallback };
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)
    return { error: fail(field, 'INVALID') };
  return { value: v };
}
