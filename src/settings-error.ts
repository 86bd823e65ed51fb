// The error of a bad setting, naming its variable, and the integer reader the settings modules share.

export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid setting ${variable}: ${message}`);
    this.name = 'SettingsError';
  }
}

type Env = Record<string, string | undefined>;

/** An integer setting within [min, max]; unset or empty → the fallback. */
export function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new SettingsError(name, `expected an integer, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max)
    throw new SettingsError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}
