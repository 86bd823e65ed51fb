// Completion of the Spark API in the Cloud Code editor, from the members generated out of the typings
// (types/cloud-code.d.ts → spark-api.json by scripts/spark-completions.ts at build time). After `Spark.`,
// `Spark.getPlayer().`, or a variable assigned such a chain (`var p = Spark.getPlayer(); p.`), it offers the
// members of the interface that expression answers; at the start of a word, the script's globals.
import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import api from './spark-api.json';

interface Member {
  name: string;
  kind: string;
  detail: string;
  doc?: string;
  returns?: string;
}

const interfaces = api.interfaces as Record<string, Member[]>;
const globals = api.globals as Member[];

const option = (m: Member): Completion => ({
  label: m.name,
  type: m.kind === 'method' ? 'method' : 'property',
  detail: m.detail.slice(m.name.length),
  ...(m.doc ? { info: m.doc } : {}),
});

/** Removes what calls were given (nested parentheses too): `a.b(x.y(1)).c` → `a.b().c`. */
function flatten(text: string): string {
  let s = text.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  for (let before = ''; before !== s; ) {
    before = s;
    s = s.replace(/\([^()]*\)/g, '()');
  }
  return s;
}

/** The interface an expression chain answers (`Spark.getPlayer()` → SparkPlayer), or undefined. */
export function typeOf(chain: string, doc: string, depth = 0): string | undefined {
  const isNew = /^new\s+/.test(chain);
  const segments = chain.replace(/^new\s+/, '').split('.');
  const head = segments[0]?.replace(/\(\)$/, '') ?? '';
  let type = globals.find((g) => g.name === head)?.returns;
  if (!type && depth < 4) {
    // A variable: the last `var|let|const head = <chain>` before here.
    const assigned = [
      ...flatten(doc).matchAll(
        new RegExp(`(?:var|let|const)\\s+${head}\\s*=\\s*((?:new\\s+)?[\\w$.()]+)`, 'g'),
      ),
    ].pop()?.[1];
    if (assigned) type = typeOf(assigned.replace(/;$/, ''), doc, depth + 1);
  }
  for (const segment of segments.slice(1)) {
    if (!type) return undefined;
    const name = segment.replace(/\(\)$/, '');
    type = interfaces[type]?.find((m) => m.name === name)?.returns;
  }
  // `new SparkRequests.LogEventRequest()` is a request.
  if (isNew && type === 'SparkRequestConstructor') return 'SparkRequest';
  return type;
}

export function sparkCompletions(context: CompletionContext): CompletionResult | null {
  const line = context.state.doc.lineAt(context.pos);
  const before = flatten(line.text.slice(0, context.pos - line.from));
  const member = /((?:new\s+)?[A-Za-z_$][\w$]*(?:\(\))?(?:\.[A-Za-z_$][\w$]*(?:\(\))?)*)\.([\w$]*)$/.exec(
    before,
  );
  if (member) {
    const docText = context.state.doc.sliceString(0, line.from);
    const type = typeOf(member[1] ?? '', docText);
    const members = type ? interfaces[type] : undefined;
    if (!members) return null;
    const seen = new Set<string>();
    return {
      from: context.pos - (member[2]?.length ?? 0),
      options: members.filter((m) => !seen.has(m.name) && seen.add(m.name)).map(option),
      validFor: /^[\w$]*$/,
    };
  }
  const word = context.matchBefore(/[\w$]+/);
  if (!word || (word.from === word.to && !context.explicit)) return null;
  return { from: word.from, options: globals.map(option), validFor: /^[\w$]*$/ };
}
