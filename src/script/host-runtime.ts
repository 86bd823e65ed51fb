// The runtime's environment as the script host calls it (leaderboard reads, requests sent from scripts): the
// execution's game stage, the engine's clock, one configuration cache per engine, and the pool given, which is
// the execution's transaction's pool when the call writes (the runtime's own BEGIN/COMMIT become savepoints there).
import type pg from 'pg';
import { type ConfigCache, createConfigCache } from '../runtime/config-cache.js';
import { DEFAULT_LOCKOUT } from '../runtime/login-lockout.js';
import type { RuntimeEnv } from '../runtime/request-kit.js';
import type { ScriptEnv, Session } from './session.js';

// The runtime requests API counts its requests and leaderboard writes; those a script makes are not counted.
const NO_METRICS = {
  runtimeRequests: { inc() {} },
  leaderboardWrites: { inc() {} },
} as unknown as RuntimeEnv['metrics'];

const caches = new WeakMap<ScriptEnv, ConfigCache>();

export function configCache(env: ScriptEnv): ConfigCache {
  const held = caches.get(env);
  if (held) return held;
  const made = createConfigCache({ now: () => performance.now() });
  env.gameChanges?.subscribe((games) => made.forget(games));
  caches.set(env, made);
  return made;
}

export function runtimeEnv(session: Session, pool: pg.Pool): RuntimeEnv {
  const { env, gs } = session;
  return {
    pool,
    stage: gs.stage,
    clock: env.clock,
    configs: configCache(env),
    lockout: DEFAULT_LOCKOUT,
    metrics: NO_METRICS,
  };
}
