// Every operation of the OpenAPI document is complete enough to generate a typed client from: a unique
// operationId, request and response schemas, and examples that its own schemas accept.
//
// It reads the committed docs/openapi.json: generated-docs.test.ts fails when that file differs from what the
// routes declare, so between the two the routes themselves are checked.
import { readFileSync } from 'node:fs';
import { Check } from 'typebox/schema';
import { describe, expect, it } from 'vitest';

type Json = Record<string, unknown>;
interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string; schema?: Json }[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
  'x-no-body'?: boolean;
}

const doc = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as { paths: Record<string, Json> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((m) => ({
    name: `${m.toUpperCase()} ${path}`,
    path,
    method: m,
    op: item[m] as Operation,
  })),
);

/** OpenAPI 3.0's `nullable` as JSON Schema (type: [t, 'null']), so the examples can be checked. */
function jsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) if (key !== 'nullable') out[key] = jsonSchema(value);
  const s = schema as Json;
  if (s.nullable === true) {
    if (typeof s.type === 'string') out.type = [s.type, 'null'];
    else return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

/** The examples of a media object, each with where it is. */
function examplesOf(media: Media): unknown[] {
  if (media.example !== undefined) return [media.example];
  return Object.values(media.examples ?? {}).map((e) => e.value);
}

/** Problems of one body or answer: no schema, an empty schema, no example, an example its schema refuses. */
function mediaProblems(where: string, content: Record<string, Media> | undefined): string[] {
  const entries = Object.entries(content ?? {});
  if (entries.length === 0) return [`${where}: no content`];
  return entries.flatMap(([type, media]) => {
    const at = `${where} ${type}`;
    if (!media.schema || Object.keys(media.schema).length === 0) return [`${at}: no schema`];
    const examples = examplesOf(media);
    if (examples.length === 0) return [`${at}: no example`];
    if (!type.includes('json')) return [];
    const schema = jsonSchema(media.schema) as Json;
    return examples.flatMap((e, i) =>
      Check(schema, e) ? [] : [`${at}: example ${i + 1} does not fit its schema`],
    );
  });
}

function requestProblems(path: string, method: string, op: Operation): string[] {
  const problems: string[] = [];
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    const declared = op.parameters?.find((p) => p.in === 'path' && p.name === name);
    if (!declared?.schema) problems.push(`path parameter ${name}: no schema`);
  }
  for (const p of op.parameters ?? []) if (!p.schema) problems.push(`${p.in} parameter ${p.name}: no schema`);
  if (op.requestBody) problems.push(...mediaProblems('request body', op.requestBody.content));
  else if (['post', 'put', 'patch'].includes(method) && !op['x-no-body'])
    problems.push('no request body schema, and not declared bodyless (NO_BODY)');
  return problems;
}

function responseProblems(op: Operation): string[] {
  const success = Object.entries(op.responses ?? {}).filter(([status]) => /^2/.test(status));
  if (success.length === 0) return ['no success response'];
  return success.flatMap(([status, r]) => mediaProblems(`response ${status}`, r.content));
}

describe('OpenAPI document completeness', () => {
  it('the document has operations (the checks below are not vacuous)', () => {
    expect(operations.length).toBeGreaterThan(150);
  });

  it('every operation has an operationId, unique in the document', () => {
    expect(operations.filter((o) => !o.op.operationId).map((o) => o.name)).toEqual([]);
    const seen = new Map<string, string[]>();
    for (const o of operations)
      seen.set(o.op.operationId ?? '', [...(seen.get(o.op.operationId ?? '') ?? []), o.name]);
    expect([...seen].filter(([, names]) => names.length > 1)).toEqual([]);
  });

  it('every operation declares its request: path parameters, and a body schema with an example', () => {
    const problems = operations.flatMap((o) =>
      requestProblems(o.path, o.method, o.op).map((p) => `${o.name}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it('every operation declares its success answer with a schema and an example that fits it', () => {
    const problems = operations.flatMap((o) => responseProblems(o.op).map((p) => `${o.name}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('the checker refuses an example its schema does not accept (the check can fail)', () => {
    const content = {
      'application/json': { schema: { type: 'object', required: ['a'] }, example: { b: 1 } },
    };
    expect(mediaProblems('probe', content)).toEqual([
      'probe application/json: example 1 does not fit its schema',
    ]);
    const nullable = { type: 'object', properties: { a: { type: 'string', nullable: true } } };
    expect(
      mediaProblems('probe', { 'application/json': { schema: nullable, example: { a: null } } }),
    ).toEqual([]);
  });
});
