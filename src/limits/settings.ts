// Limit settings from the environment, with the spec's values as defaults; called once at the edge (main).

export interface LimitSettings {
  perUserPerMinute: number;
  perGamePerMinute: number;
  concurrentConfigWrites: number;
  runtimePerGamePerSecond: number;
  slotTtlMs: number;
}

/** Setting name → [field, default]. 0 turns a limit off (benchmarks); slotTtlMs must stay positive. */
const SETTINGS: [string, keyof LimitSettings, number][] = [
  ['PLAYBASE_LIMIT_USER_PER_MINUTE', 'perUserPerMinute', 300],
  ['PLAYBASE_LIMIT_GAME_PER_MINUTE', 'perGamePerMinute', 600],
  ['PLAYBASE_LIMIT_CONFIG_CONCURRENT', 'concurrentConfigWrites', 10],
  ['PLAYBASE_LIMIT_RUNTIME_PER_SECOND', 'runtimePerGamePerSecond', 1000],
  ['PLAYBASE_LIMIT_SLOT_TTL_MS', 'slotTtlMs', 5000],
];

export const defaultLimitSettings: Readonly<LimitSettings> = Object.freeze(
  Object.fromEntries(SETTINGS.map(([, field, fallback]) => [field, fallback])) as unknown as LimitSettings,
);

/** Reads the PLAYBASE_LIMIT_* variables; throws naming the variable when one is not a whole number ≥ 0. */
export function readLimitSettings(env: Record<string, string | undefined>): LimitSettings {
  const settings = { ...defaultLimitSettings };
  for (const [name, field, fallback] of SETTINGS) {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') {
      settings[field] = fallback;
      continue;
    }
    const value = Number(raw);
    const minimum = field === 'slotTtlMs' ? 1 : 0;
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < minimum) {
      throw new Error(`${name} must be a whole number ≥ ${minimum}, got "${raw}"`);
    }
    settings[field] = value;
  }
  return settings;
}
