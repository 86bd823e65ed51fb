// `explain` in words: which index found the documents, whether an index gave the sort order (and the read
// stopped early), and what was tested per document, read from PostgreSQL's EXPLAIN (FORMAT JSON) of the
// find's first statement. Field names come from the pb_pk / pb_sk_* calls the compiler writes.

import { MULTIKEY_INDEX } from '../store/multikey.js';

interface PlanNode {
  'Node Type'?: string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  'Index Cond'?: string;
  Filter?: string;
  'Recheck Cond'?: string;
  Plans?: PlanNode[];
}

function nodesOf(root: PlanNode): PlanNode[] {
  const out: PlanNode[] = [];
  const visit = (n: PlanNode) => {
    out.push(n);
    for (const child of n.Plans ?? []) visit(child);
  };
  visit(root);
  return out;
}

/** Field paths named in a plan's expression text: pb_pk(doc, '{a,b}'::text[]) gives a.b. */
function fieldsIn(text: string | undefined): string[] {
  if (!text) return [];
  const found = new Set<string>();
  for (const m of text.matchAll(/pb_(?:pk|uk|sk_asc|sk_desc|walk|arr)\(\w+, '\{([^}]*)\}'/g)) {
    found.add(
      m[1]!
        .split(',')
        .map((p) => p.replace(/^"|"$/g, ''))
        .join('.'),
    );
  }
  return [...found];
}

const list = (xs: string[]) => xs.map((x) => `"${x}"`).join(', ');

/**
 * Sentences describing the plan. `sorted`: the find has a sort; `limited`: it has a limit. `names` maps
 * PostgreSQL index names to the API's (the primary key is `_id_`).
 */
export function explainInWords(
  plan: unknown,
  names: Map<string, string>,
  read: { sorted: boolean; limited: boolean },
): string[] {
  const root = (plan as { Plan?: PlanNode } | undefined)?.Plan;
  if (root === undefined) return [];
  const nodes = nodesOf(root);
  const words: string[] = [];
  const nameOf = (n: PlanNode) => `index "${names.get(n['Index Name'] ?? '') ?? n['Index Name']}"`;
  const scans = nodes.filter(
    (n) => /Index/.test(n['Node Type'] ?? '') && n['Index Name'] && n['Index Name'] !== MULTIKEY_INDEX,
  );
  const hasSort = nodes.some((n) => n['Node Type'] === 'Sort');
  for (const n of scans) {
    const fields = fieldsIn(n['Index Cond']);
    const on = fields.length > 0 ? ` on ${list(fields)}` : n['Index Cond'] ? ' on _id' : '';
    if (n['Node Type'] === 'Bitmap Index Scan') {
      words.push(`The ${nameOf(n)} found the candidate documents${on}.`);
    } else if (n['Index Cond']) {
      words.push(`The ${nameOf(n)} found the matching documents${on}.`);
    }
    if (read.sorted && !hasSort && n['Node Type'] !== 'Bitmap Index Scan') {
      const dir = n['Scan Direction'] === 'Backward' ? 'backward' : 'forward';
      words.push(
        `The ${nameOf(n)} gave the sort order (read ${dir})${read.limited ? ', and the read stopped once the limit was reached' : ''}.`,
      );
    }
  }
  if (nodes.some((n) => n['Node Type'] === 'BitmapAnd'))
    words.push('The candidates of several indexes were intersected.');
  if (nodes.some((n) => n['Node Type'] === 'BitmapOr'))
    words.push('The candidates of several index conditions were combined (an $or or an array arm).');
  if (nodes.some((n) => n['Node Type'] === 'Seq Scan'))
    words.push('No index served the filter: every document of the collection was tested.');
  if (read.sorted && hasSort)
    words.push('The matches were sorted after they were found (no index gave the sort order).');
  const tests = nodes.flatMap((n) => [n.Filter ?? '']).join(' ');
  if (/pb_walk/.test(tests))
    words.push(
      `Paths that hold arrays in this collection were tested element by element: ${list(fieldsIn(tests.replace(/pb_pk/g, '')))}.`,
    );
  else if (fieldsIn(tests).length > 0)
    words.push(`Each document read was also tested on ${list(fieldsIn(tests))}.`);
  return words;
}
