// PLAYBASE_CONSOLE_ORIGINS (docs/console.md): the origins a web console is served from when it is not the nosql
// server's own, e.g. split mode where the console (config role) and the stage URLs (nosql role) differ.
import { SettingsError } from './settings-error.js';

/** Comma-separated origins (`scheme://host[:port]`, nothing after); unset or empty → same origin only. */
export function readConsoleOrigins(env: Record<string, string | undefined>): string[] {
  const raw = env.PLAYBASE_CONSOLE_ORIGINS?.trim();
  if (!raw) return [];
  const origins = raw.split(',').map((o) => o.trim());
  for (const origin of origins) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin)
      throw new SettingsError(
        'PLAYBASE_CONSOLE_ORIGINS',
        `"${origin}" is not an origin (scheme://host[:port], no path, no trailing slash)`,
      );
  }
  return [...new Set(origins)];
}
