// Cloud Code test setup: a runtime world whose configuration document carries `~scripts`, written through the
// store (the script routes are another module's), and the runtime told at once that the game changed.
import { readStoredConfig, writeGameConfig } from '../../src/store/game-configs.js';
import { bumpConfigVersion } from '../../src/store/games.js';
import type { CloudScript, ConfigDoc, ScriptFolder } from '../../src/types/config.js';
import type { RuntimeWorld } from '../runtime/world.js';

export const script = (folder: ScriptFolder, shortCode: string, source: string): CloudScript => ({
  folder,
  shortCode,
  script: source,
});

export async function setScripts(w: RuntimeWorld, scripts: CloudScript[]): Promise<void> {
  const pool = w.server.store.pool;
  const doc = (await readStoredConfig(pool, w.apiKey)) ?? {};
  await writeGameConfig(pool, w.apiKey, { ...doc, '~scripts': scripts } as ConfigDoc);
  await bumpConfigVersion(pool, w.apiKey);
  w.server.ctx.gameChanges?.publish([w.apiKey]);
}

/** Sets the lines as the event script `score` and answers a LogEventRequest of it by the player. */
export async function runEventScript(w: RuntimeWorld, playerId: string, lines: string[]) {
  await setScripts(w, [script('event', 'score', lines.join('\n'))]);
  return w.ask('LogEventRequest', { eventKey: 'score', playerId, SCORE: 1 });
}
