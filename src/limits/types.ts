// Shapes shared by the limiters, the errors and the Fastify hooks of src/limits.

/** Which counter a RateResult describes; 'none' when nothing was counted (no user, no game, or limit off). */
export type RateScope = 'user' | 'game' | 'runtime' | 'data' | 'none';

export interface RateResult {
  allowed: boolean;
  scope: RateScope;
  /** Points of the counter's window (the configured limit). */
  limit: number;
  /** Points left in the current window after this request. */
  remaining: number;
  /** Seconds until the current window ends and the counter starts again. */
  resetSeconds: number;
  /** Seconds to wait before retrying; 0 when allowed. */
  retryAfterSeconds: number;
}

/** pino-like logger: only what the limiters use. */
export interface LimitsLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

/** Releases a held concurrency slot; safe to call any number of times, never rejects. */
export type ReleaseSlot = () => Promise<void>;
