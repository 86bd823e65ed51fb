// The runtime data pages (Data Explorer, players, leaderboard entries, script log) call the nosql role at the
// stage base URL that endpoint discovery names, with a JWT of the game (the typed client's `stage`); the stage
// chosen on one of them is kept for the others.
import { signal } from '@preact/signals';
import type { Client, Stage, StagePaths } from 'playbase/client';
import { call } from './session.js';

export const stage = signal<Stage>('preview');

type Answer<D> = Promise<{ data?: D; error?: unknown; response: Response }>;

/** One call on the chosen stage, through `call` (a refused token opens the sign-in dialog, then retries). */
export function onStage<D>(
  apiKey: string,
  send: (c: Client<StagePaths>) => Answer<D>,
): Promise<NonNullable<D>> {
  const chosen = stage.value;
  return call(async (c) => send(await c.stage(apiKey, chosen)));
}

/** Offers `text` as a file download through a temporary link. */
export function saveFile(name: string, text: string, type = 'application/json'): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}
