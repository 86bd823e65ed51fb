// Manage items in bulk: the original's export file ({screens, snippets, queries} keyed by short code, screens'
// markup in `html`, groups in `allowedGroups`) or Playbase's own lists, read into items the API takes, and
// written to a game (created, or replaced when the short code exists).
import { PlaybaseApiError } from 'playbase/client';
import { call } from '../session.js';

export interface ScreenItem {
  shortCode: string;
  name: string;
  template: string;
  groups: string[];
}
export interface SnippetItem extends ScreenItem {
  script: string;
  scriptData: Record<string, unknown>;
}
export interface QueryItem {
  shortCode: string;
  name: string;
  collection: string;
  query: Record<string, unknown>;
  fields: Record<string, unknown>;
  sort: Record<string, unknown>;
  limit: number;
  groups: string[];
}
export interface Bundle {
  screens: ScreenItem[];
  snippets: SnippetItem[];
  queries: QueryItem[];
  /** What could not be taken, and why. */
  skipped: string[];
}

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const groupsOf = (r: Raw) =>
  [r.groups, r.allowedGroups].flatMap((g) =>
    Array.isArray(g) ? g.filter((x) => typeof x === 'string') : [],
  );

/** The items of a map keyed by short code, or of a list. */
function itemsOf(v: unknown): Raw[] {
  if (Array.isArray(v)) return v.filter(isObject);
  if (!isObject(v)) return [];
  return Object.entries(v)
    .filter(([, item]) => isObject(item))
    .map(([code, item]) => ({ shortCode: code, ...(item as Raw) }));
}

export function readBundle(json: unknown): Bundle {
  if (!isObject(json)) throw new Error('The file is not a JSON object with screens, snippets and queries');
  const skipped: string[] = [];
  const base = (r: Raw) => ({
    shortCode: str(r.shortCode),
    name: str(r.name) || str(r.shortCode),
    groups: [...new Set(groupsOf(r))],
  });
  const screens = itemsOf(json.screens).map((r) => ({
    ...base(r),
    template: str(r.template) || str(r.html),
  }));
  const snippets = itemsOf(json.snippets).map((r) => ({
    ...base(r),
    template: str(r.template) || str(r.html),
    script: str(r.script),
    scriptData: isObject(r.scriptData) ? r.scriptData : {},
  }));
  const queries: QueryItem[] = [];
  for (const r of itemsOf(json.queries)) {
    // The original's queries were Elasticsearch charts (esRules); only saved collection queries come across.
    if (typeof r.collection !== 'string') {
      skipped.push(`query ${str(r.shortCode)}: a chart query (no collection), charts are not supported`);
      continue;
    }
    queries.push({
      ...base(r),
      collection: r.collection,
      query: isObject(r.query) ? r.query : {},
      fields: isObject(r.fields) ? r.fields : {},
      sort: isObject(r.sort) ? r.sort : {},
      limit: typeof r.limit === 'number' ? r.limit : 100,
    });
  }
  const bad = [...screens, ...snippets].filter((i) => !i.shortCode);
  if (bad.length) throw new Error(`${bad.length} item(s) without a short code`);
  return { screens, snippets, queries, skipped };
}

type Kind = 'screens' | 'snippets' | 'queries';

async function put(apiKey: string, kind: Kind, item: { shortCode: string }): Promise<'created' | 'replaced'> {
  const path = `/restv2/game/{apiKey}/manage/${kind}` as '/restv2/game/{apiKey}/manage/screens';
  try {
    await call((c) => c.api.POST(path, { params: { path: { apiKey } }, body: item as never }));
    return 'created';
  } catch (e) {
    if (!(e instanceof PlaybaseApiError) || e.code !== 'MANAGE_ITEM_EXISTS') throw e;
    const { shortCode, ...rest } = item;
    const one = `${path}/{shortCode}` as '/restv2/game/{apiKey}/manage/screens/{shortCode}';
    await call((c) => c.api.PUT(one, { params: { path: { apiKey, shortCode } }, body: rest as never }));
    return 'replaced';
  }
}

/** Writes the bundle's items (snippets first, so a screen never shows before its snippets); a summary line. */
export async function installBundle(apiKey: string, bundle: Bundle): Promise<string> {
  const counts = { created: 0, replaced: 0 };
  for (const [kind, items] of [
    ['snippets', bundle.snippets],
    ['queries', bundle.queries],
    ['screens', bundle.screens],
  ] as const) {
    for (const item of items) counts[await put(apiKey, kind, item)]++;
  }
  const skipped = bundle.skipped.length ? `; skipped: ${bundle.skipped.join('; ')}` : '';
  return `${counts.created} created, ${counts.replaced} replaced${skipped}`;
}
