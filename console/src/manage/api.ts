// The Manage section's calls: lists of screens and snippets (config role), the caller's groups, and the snippet
// run route on a stage's nosql server (through the typed client's stage client, with its JWT).
import type { Stage } from 'playbase/client';
import { call } from '../session.js';
import type { ScreenItem, SnippetItem } from './bundle.js';
import type { RunAnswer } from './screen-view.js';

export interface Trace {
  script: string;
  outcome: string;
  ms: number;
  logs: { ts: number; level: string; log: unknown }[];
  error?: { message: string; at: string | null; stack: string };
}

export const listScreens = (apiKey: string) =>
  call((c) => c.api.GET('/restv2/game/{apiKey}/manage/screens', { params: { path: { apiKey } } })) as Promise<
    ScreenItem[]
  >;

export const listSnippets = (apiKey: string) =>
  call((c) =>
    c.api.GET('/restv2/game/{apiKey}/manage/snippets', { params: { path: { apiKey } } }),
  ) as Promise<SnippetItem[]>;

export interface Me {
  owner: boolean;
  groups: string[];
}
export const whoAmI = (apiKey: string) =>
  call((c) =>
    c.api.GET('/restv2/auth/game/{apiKey}/permissions', { params: { path: { apiKey } } }),
  ) as Promise<Me>;

/** No groups, the owner, or a group in common: as the server decides. */
export const mayUse = (me: Me | undefined, item: { groups: string[] }) =>
  item.groups.length === 0 || !!me?.owner || item.groups.some((g) => me?.groups.includes(g));

export async function runSnippet(
  apiKey: string,
  stage: Stage,
  shortCode: string,
  scriptData: Record<string, unknown>,
  trace = false,
): Promise<RunAnswer & { trace?: Trace[] }> {
  return call(async (c) =>
    (await c.stage(apiKey, stage)).POST('/restv2/game/{gameApiKey}/manage/snippets/{shortCode}/run', {
      params: { path: { gameApiKey: apiKey, shortCode }, query: trace ? { trace: '1' } : {} },
      body: { scriptData },
    }),
  ) as Promise<RunAnswer & { trace?: Trace[] }>;
}

export async function saveItem(
  apiKey: string,
  kind: 'screens' | 'snippets',
  item: ScreenItem | SnippetItem,
  isNew: boolean,
): Promise<void> {
  const path = `/restv2/game/{apiKey}/manage/${kind}` as '/restv2/game/{apiKey}/manage/snippets';
  if (isNew) {
    await call((c) => c.api.POST(path, { params: { path: { apiKey } }, body: item as never }));
    return;
  }
  const { shortCode, ...rest } = item;
  const one = `${path}/{shortCode}` as '/restv2/game/{apiKey}/manage/snippets/{shortCode}';
  await call((c) => c.api.PUT(one, { params: { path: { apiKey, shortCode } }, body: rest as never }));
}

export async function deleteItem(apiKey: string, kind: 'screens' | 'snippets', shortCode: string) {
  const one =
    `/restv2/game/{apiKey}/manage/${kind}/{shortCode}` as '/restv2/game/{apiKey}/manage/snippets/{shortCode}';
  await call((c) => c.api.DELETE(one, { params: { path: { apiKey, shortCode } } }));
}
