// The console's Cloud Code completion, generated from the Spark API typings (types/cloud-code.d.ts and the files
// it references): each interface's members with their signature, documentation and the interface they answer,
// and the script's globals. Run by `npm run console:build` before Vite; writes console/src/cloud-code/spark-api.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface SparkMember {
  name: string;
  kind: 'method' | 'property';
  /** `getPlayer(): SparkPlayer | null` */
  detail: string;
  doc?: string;
  /** The interface the member answers (or holds), when it answers one. */
  returns?: string;
}
export interface SparkApi {
  interfaces: Record<string, SparkMember[]>;
  globals: SparkMember[];
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const TYPINGS = ['types/cloud-code.d.ts', 'types/spark-services.d.ts'];

function docOf(node: ts.Node, file: ts.SourceFile): string | undefined {
  const text = ts
    .getJSDocCommentsAndTags(node)
    .map((d) =>
      d
        .getText(file)
        .replace(/^\/\*\*\s?|\s*\*\/$/g, '')
        .replace(/\n\s*\* ?/g, ' '),
    )
    .join(' ')
    .trim();
  return text || undefined;
}

function typeName(type: ts.TypeNode | undefined, file: ts.SourceFile): string | undefined {
  if (!type) return undefined;
  // `SparkPlayer | null` → SparkPlayer; `SparkLeaderboard[]` is not followed.
  const named = ts.isUnionTypeNode(type) ? type.types.find((t) => ts.isTypeReferenceNode(t)) : type;
  return named && ts.isTypeReferenceNode(named) ? named.typeName.getText(file) : undefined;
}

function member(m: ts.TypeElement, file: ts.SourceFile): SparkMember | undefined {
  if (!m.name || !(ts.isMethodSignature(m) || ts.isPropertySignature(m))) return undefined;
  const name = m.name.getText(file);
  const returns = typeName(m.type, file);
  const doc = docOf(m, file);
  const detail = m
    .getText(file)
    .replace(/^\/\*\*[\s\S]*?\*\/\s*/, '')
    .replace(/\s+/g, ' ')
    .replace(/;$/, '')
    .replace(/^readonly /, '');
  return {
    name,
    kind: ts.isMethodSignature(m) ? 'method' : 'property',
    detail,
    ...(doc ? { doc } : {}),
    ...(returns ? { returns } : {}),
  };
}

export function sparkApi(): SparkApi {
  const api: SparkApi = { interfaces: {}, globals: [] };
  for (const path of TYPINGS) {
    const file = ts.createSourceFile(
      path,
      readFileSync(join(root, path), 'utf8'),
      ts.ScriptTarget.ES2022,
      true,
    );
    for (const s of file.statements) {
      if (ts.isInterfaceDeclaration(s)) {
        const own = s.members.map((m) => member(m, file)).filter((m) => m !== undefined);
        const base = s.heritageClauses?.flatMap((h) => h.types.map((t) => t.expression.getText(file))) ?? [];
        const existing = api.interfaces[s.name.text] ?? [];
        api.interfaces[s.name.text] = [
          ...existing,
          ...own,
          ...base.map((b) => ({ name: `…${b}`, kind: 'property' as const, detail: b, returns: b })),
        ];
      } else if (ts.isVariableStatement(s)) {
        for (const d of s.declarationList.declarations) {
          const returns = typeName(d.type, file);
          const doc = docOf(s, file);
          api.globals.push({
            name: d.name.getText(file),
            kind: 'property',
            detail: `${d.name.getText(file)}: ${d.type?.getText(file)}`,
            ...(doc ? { doc } : {}),
            ...(returns ? { returns } : {}),
          });
        }
      } else if (ts.isFunctionDeclaration(s) && s.name) {
        const doc = docOf(s, file);
        const text = s.getText(file).replace(/^\/\*\*[\s\S]*?\*\/\s*/, '');
        api.globals.push({
          name: s.name.text,
          kind: 'method',
          detail: text.replace(/^declare function /, '').replace(/;$/, ''),
          ...(doc ? { doc } : {}),
        });
      }
    }
  }
  // Inherited members (`…Base` markers) are replaced by the base interface's members.
  for (const [name, members] of Object.entries(api.interfaces)) {
    api.interfaces[name] = members.flatMap((m) =>
      m.name.startsWith('…') ? (api.interfaces[m.returns ?? ''] ?? []) : [m],
    );
  }
  return api;
}

export const SPARK_API_JSON = 'console/src/cloud-code/spark-api.json';

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(join(root, SPARK_API_JSON), `${JSON.stringify(sparkApi(), null, 1)}\n`);
}
