// Saved scenarios: named request sequences in this browser's localStorage, per game (never a secret or a token:
// only the requests as typed). Exported and imported as JSON.
import type { Req } from './catalogue.js';

export interface Scenario {
  name: string;
  requests: Req[];
}

const key = (apiKey: string) => `playbase.harness.scenarios.${apiKey}`;

export function loadScenarios(apiKey: string): Scenario[] {
  try {
    const saved = JSON.parse(localStorage.getItem(key(apiKey)) ?? '[]') as unknown;
    return Array.isArray(saved) ? (saved as Scenario[]).filter((s) => s && typeof s.name === 'string') : [];
  } catch {
    return [];
  }
}

export function storeScenarios(apiKey: string, list: Scenario[]): void {
  if (list.length === 0) localStorage.removeItem(key(apiKey));
  else localStorage.setItem(key(apiKey), JSON.stringify(list));
}

/** Scenarios of an exported file (an array, or one scenario). */
export function readScenarios(text: string): Scenario[] {
  const json = JSON.parse(text) as unknown;
  const list = Array.isArray(json) ? json : [json];
  return list.map((s, i) => {
    const o = s as Partial<Scenario>;
    if (!o || typeof o.name !== 'string' || !Array.isArray(o.requests)) {
      throw new Error(`Scenario ${i + 1} needs a name and a list of requests`);
    }
    return { name: o.name, requests: o.requests };
  });
}
