// Vitest global setup: builds the embedded-store template once per run (see test/template.ts).
import { ensureTemplate } from './template.js';

export default async function setup(): Promise<void> {
  await ensureTemplate();
}
