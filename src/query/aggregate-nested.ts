// Stages that run other pipelines: $facet (sub-pipelines over the same input), $lookup (a join with another
// collection of the same game and stage, by equality and/or a pipeline with `let` variables) and $unionWith.
// The other collection's documents are read before the run (the caller's `foreign` option, after the caller
// checked that the request may read them): the leading $match/$sort/$skip/$limit of the sub-pipeline go to that
// read, and its first stages that use no variable run once, not once per input document.
import type { Pushdown } from './aggregate.js';
import {
  type Expr,
  evaluate,
  parseExpression,
  parseFieldPath,
  parsingWithVars,
  runningWithVars,
  varsInScope,
} from './aggregate-expr.js';
import type { Processor } from './aggregate-stages.js';
import { queryErrors } from './errors.js';
import { checkVarName } from './expr/core.js';
import { EMPTY_ARRAY, MISSING, walkPath } from './path-walk.js';
import { pipelineErrors } from './pipeline-errors.js';
import { equalityKey } from './value-identity.js';
import { MAX_DOCUMENT_BYTES, valueBytes } from './value-size.js';
import { type Doc, fromWire, isDoc, setField, type Value } from './values.js';

/** One read of another collection: its name, what SQL may do, and the same stages to run in memory instead. */
export interface ForeignRead<S = unknown> {
  collection: string;
  pushdown: Pushdown;
  head: S[];
}

/** What the nested stages need of the pipeline module (given, not imported, so neither imports the other). */
export interface SubPipelines<S> {
  parse(raw: unknown): S[];
  split(stages: S[]): { pushdown: Pushdown; rest: S[] };
  isMatch(stage: S): boolean;
}

/** Documents fed into $lookup sub-pipelines by one pipeline run (input documents × foreign documents). */
export const MAX_LOOKUP_WORK = 2_000_000;
/** Sub-pipelines nest at most this deep ($lookup in $facet in $lookup...), as in MongoDB. */
export const MAX_SUB_PIPELINE_DEPTH = 20;

let depth = 0;

function parseSub<S>(raw: unknown, stage: string, sub: SubPipelines<S>): S[] {
  if (!Array.isArray(raw)) throw pipelineErrors.badStage(stage, 'pipeline must be an array of stages');
  if (depth >= MAX_SUB_PIPELINE_DEPTH)
    throw queryErrors.tooLarge('nesting of sub-pipelines', MAX_SUB_PIPELINE_DEPTH);
  depth++;
  try {
    return sub.parse(raw);
  } finally {
    depth--;
  }
}

export interface FacetSpec<S> {
  facets: Array<[string, S[]]>;
}

export function parseFacet<S>(raw: unknown, sub: SubPipelines<S>): FacetSpec<S> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || Object.keys(raw).length === 0)
    throw pipelineErrors.badStage('$facet', 'expected a non-empty document of named pipelines');
  const facets: Array<[string, S[]]> = [];
  for (const [name, pipeline] of Object.entries(raw)) {
    if (name === '' || name.startsWith('$') || name.includes('.'))
      throw pipelineErrors.badStage('$facet', `bad facet name '${name}'`);
    if (Array.isArray(pipeline) && pipeline.length === 0)
      throw pipelineErrors.badStage('$facet', `the sub-pipeline '${name}' is empty`);
    const stages = parseSub(pipeline, '$facet', sub);
    for (const s of pipeline as Array<Record<string, unknown>>) {
      const op = Object.keys(s)[0];
      if (op === '$facet') throw pipelineErrors.badStage('$facet', '$facet is not allowed inside $facet');
    }
    facets.push([name, stages]);
  }
  return { facets };
}

/** A chain of stages fed one document at a time (the pipeline module's). */
export interface SubChain {
  push(doc: Doc): Doc[];
  flush(): Doc[];
}

/** $facet: every input document goes to each sub-pipeline; one output document holds each one's results. */
export function facetProcessor<S>(
  spec: FacetSpec<S>,
  chain: (stages: S[]) => SubChain,
  cap: number,
): Processor {
  const chains = spec.facets.map(([, stages]) => chain(stages));
  const outputs: Doc[][] = spec.facets.map(() => []);
  let held = 0;
  let bytes = 0;
  const keep = (i: number, docs: Doc[]) => {
    for (const doc of docs) {
      outputs[i]!.push(doc);
      held++;
      bytes += valueBytes(doc);
      if (held > cap) throw pipelineErrors.bufferLimit('$facet', cap);
      if (bytes > MAX_DOCUMENT_BYTES)
        throw queryErrors.tooLarge('bytes of the $facet output document', MAX_DOCUMENT_BYTES);
    }
  };
  return {
    push: (doc) => {
      chains.forEach((c, i) => {
        keep(i, c.push(doc));
      });
    },
    flush: (emit) => {
      chains.forEach((c, i) => {
        keep(i, c.flush());
      });
      const out: Doc = {};
      spec.facets.forEach(([name], i) => {
        setField(out, name, outputs[i]!);
      });
      emit(out);
    },
    finished: () => false,
  };
}

export interface LookupSpec<S> {
  as: string[];
  local: string[] | undefined;
  foreign: string[] | undefined;
  lets: Array<[string, Expr]>;
  read: ForeignRead<S>;
  /** The first stages after the read that use no variable: run once, their output kept. */
  cached: S[];
  rest: S[];
}

function collectionName(v: unknown, stage: string, what: string): string {
  if (typeof v !== 'string' || v === '')
    throw pipelineErrors.badStage(
      stage,
      `${what} must be the name of a collection of the same game and stage`,
    );
  return v;
}

function fieldPath(v: unknown, stage: string, what: string): string[] {
  if (typeof v !== 'string' || v === '' || v.startsWith('$'))
    throw pipelineErrors.badStage(stage, `${what} must be a field path not starting with $`);
  return parseFieldPath(v, stage);
}

/** True when the raw stage names one of `vars` as $$name or $$name.path (conservatively: anywhere). */
function usesVars(raw: unknown, vars: string[]): boolean {
  if (vars.length === 0) return false;
  const text = JSON.stringify(raw);
  return vars.some((name) => text.includes(`"$$${name}"`) || text.includes(`"$$${name}.`));
}

const LOOKUP_KEYS = ['from', 'as', 'localField', 'foreignField', 'let', 'pipeline'];

export function parseLookup<S>(raw: unknown, sub: SubPipelines<S>): LookupSpec<S> {
  const bad = (why: string) => pipelineErrors.badStage('$lookup', why);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw bad('the specification must be a document');
  const spec = raw as Record<string, unknown>;
  for (const key of Object.keys(spec))
    if (!LOOKUP_KEYS.includes(key)) throw bad(`unrecognized option ${key}`);
  const collection = collectionName(spec.from, '$lookup', 'from');
  const as = fieldPath(spec.as, '$lookup', 'as');
  const hasLocal = spec.localField !== undefined;
  if (hasLocal !== (spec.foreignField !== undefined)) throw bad('localField and foreignField go together');
  if (!hasLocal && spec.pipeline === undefined) throw bad('give localField and foreignField, or a pipeline');
  if (spec.let !== undefined && spec.pipeline === undefined) throw bad('let requires a pipeline');
  const local = hasLocal ? fieldPath(spec.localField, '$lookup', 'localField') : undefined;
  const foreign = hasLocal ? fieldPath(spec.foreignField, '$lookup', 'foreignField') : undefined;
  const lets: Array<[string, Expr]> = [];
  if (spec.let !== undefined) {
    if (typeof spec.let !== 'object' || spec.let === null || Array.isArray(spec.let))
      throw bad('let must be a document of variables');
    for (const [name, v] of Object.entries(spec.let)) {
      checkVarName('$lookup', name);
      lets.push([name, parseExpression(fromWire(v, { allowDollarKeys: true }), '$lookup')]);
    }
  }
  const names = lets.map(([name]) => name);
  const rawStages = (spec.pipeline ?? []) as unknown[];
  const stages = parsingWithVars(names, () => parseSub(rawStages, '$lookup', sub));
  const inScope = [...new Set([...names, ...varsInScope()])];
  // With localField, only $match commutes with the join's own selection; without, $sort/$skip/$limit too.
  let headEnd = stages.length;
  if (hasLocal) {
    headEnd = 0;
    while (headEnd < stages.length && sub.isMatch(stages[headEnd]!)) headEnd++;
  }
  const { pushdown, rest: afterHead } = sub.split(stages.slice(0, headEnd));
  const pushed = headEnd - afterHead.length;
  const rest = [...afterHead, ...stages.slice(headEnd)];
  let cachedEnd = 0;
  if (!hasLocal) {
    const rawRest = rawStages.slice(pushed);
    while (
      cachedEnd < rest.length &&
      !usesVars(rawRest[cachedEnd], inScope) &&
      !Object.hasOwn(rawRest[cachedEnd] as object, '$sample')
    )
      cachedEnd++;
  }
  return {
    as,
    local,
    foreign,
    lets,
    read: { collection, pushdown, head: stages.slice(0, pushed) },
    cached: rest.slice(0, cachedEnd),
    rest: rest.slice(cachedEnd),
  };
}

export interface NestedRun<S> {
  read(read: ForeignRead<S>): Doc[];
  run(stages: S[], docs: Doc[]): Doc[];
  cap: number;
  now: Date;
  /** Documents fed into $lookup sub-pipelines so far in this run, and the most it may feed. */
  work: { fed: number; max: number };
}

/** The values a localField names (leaf arrays give their elements); none at all is null (MongoDB's rule). */
function localKeys(doc: Doc, path: string[]): string[] {
  const keys: string[] = [];
  for (const v of walkPath(doc, path, 'sort'))
    if (v !== MISSING && v !== EMPTY_ARRAY) keys.push(equalityKey(v));
  return keys.length === 0 ? [equalityKey(null)] : keys;
}

/** The foreign documents by every value an equality ({foreignField: v}, as the filter engine) would match. */
function indexBy(docs: Doc[], path: string[]): Map<string, number[]> {
  const index = new Map<string, number[]>();
  docs.forEach((doc, i) => {
    const keys = new Set(
      walkPath(doc, path, 'traverse').map((v) => equalityKey(v === MISSING || v === EMPTY_ARRAY ? null : v)),
    );
    for (const key of keys) {
      const list = index.get(key);
      if (list === undefined) index.set(key, [i]);
      else list.push(i);
    }
  });
  return index;
}

export function lookupProcessor<S>(spec: LookupSpec<S>, run: NestedRun<S>): Processor {
  let foreign: Doc[] | undefined;
  let index: Map<string, number[]> | undefined;
  const base = () => {
    if (foreign === undefined) {
      foreign = run.read(spec.read);
      if (spec.cached.length > 0) foreign = run.run(spec.cached, foreign);
      if (spec.foreign !== undefined) index = indexBy(foreign, spec.foreign);
    }
    return foreign;
  };
  const joined = (doc: Doc): Doc[] => {
    const all = base();
    if (index === undefined || spec.local === undefined) return all;
    const hits = new Set<number>();
    for (const key of localKeys(doc, spec.local)) for (const i of index.get(key) ?? []) hits.add(i);
    return [...hits].sort((a, b) => a - b).map((i) => all[i]!);
  };
  return {
    push: (doc, emit) => {
      let matched = joined(doc);
      if (spec.rest.length > 0) {
        run.work.fed += matched.length;
        if (run.work.fed > run.work.max)
          throw queryErrors.tooLarge('documents fed into $lookup sub-pipelines', run.work.max);
        const vars = new Map(spec.lets.map(([name, expr]) => [name, evaluate(expr, doc, run.now)]));
        const input = matched;
        matched = runningWithVars(vars, () => run.run(spec.rest, input));
      }
      if (matched.length > run.cap) throw pipelineErrors.bufferLimit('$lookup', run.cap);
      let bytes = 0;
      for (const m of matched) {
        bytes += valueBytes(m);
        if (bytes > MAX_DOCUMENT_BYTES)
          throw queryErrors.tooLarge(
            'bytes of the documents one $lookup joins to a document',
            MAX_DOCUMENT_BYTES,
          );
      }
      emit(setNested(doc, spec.as, matched));
    },
    flush: () => {},
    finished: () => false,
  };
}

/** A copy of `doc` with `path` set to `value`; what is not a document on the way is replaced by one. */
function setNested(doc: Doc, path: string[], value: Value): Doc {
  const out: Doc = { ...doc };
  const [head, ...rest] = path as [string, ...string[]];
  const current = Object.hasOwn(doc, head) ? doc[head] : undefined;
  setField(out, head, rest.length === 0 ? value : setNested(isDoc(current) ? current : {}, rest, value));
  return out;
}

export interface UnionSpec<S> {
  read: ForeignRead<S>;
  rest: S[];
}

export function parseUnionWith<S>(raw: unknown, sub: SubPipelines<S>): UnionSpec<S> {
  const bad = (why: string) => pipelineErrors.badStage('$unionWith', why);
  const spec = typeof raw === 'string' ? { coll: raw } : raw;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
    throw bad('expected a collection name or {coll, pipeline}');
  for (const key of Object.keys(spec))
    if (key !== 'coll' && key !== 'pipeline') throw bad(`unrecognized option ${key}`);
  const { coll, pipeline } = spec as Record<string, unknown>;
  const collection = collectionName(coll, '$unionWith', 'coll');
  const stages = parseSub(pipeline ?? [], '$unionWith', sub);
  const { pushdown, rest } = sub.split(stages);
  return { read: { collection, pushdown, head: stages.slice(0, stages.length - rest.length) }, rest };
}

/** $unionWith: the input passes through, then the other collection's documents through its pipeline. */
export function unionWithProcessor<S>(spec: UnionSpec<S>, run: NestedRun<S>): Processor {
  return {
    push: (doc, emit) => emit(doc),
    flush: (emit) => {
      for (const doc of run.run(spec.rest, run.read(spec.read))) emit(doc);
    },
    finished: () => false,
  };
}

/** Stages of a pipeline with those of its sub-pipelines ($facet, $lookup, $unionWith), at every depth. */
export function countStages<S>(stages: S[]): number {
  let n = stages.length;
  for (const stage of stages as Array<{ op: string } & Record<string, unknown>>) {
    if (stage.op === '$facet')
      for (const [, sub] of (stage.spec as FacetSpec<S>).facets) n += countStages(sub);
    if (stage.op === '$lookup' || stage.op === '$unionWith') {
      const spec = stage.spec as LookupSpec<S> | UnionSpec<S>;
      n +=
        countStages(spec.read.head) +
        countStages(spec.rest) +
        ('cached' in spec ? countStages(spec.cached) : 0);
    }
  }
  return n;
}

/** Every read of other collections a pipeline makes, nested ones included, for the caller to load. */
export function foreignReadsOf<S>(stages: S[], out: Array<ForeignRead<S>> = []): Array<ForeignRead<S>> {
  for (const stage of stages as Array<{ op: string } & Record<string, unknown>>) {
    if (stage.op === '$facet')
      for (const [, sub] of (stage.spec as FacetSpec<S>).facets) foreignReadsOf(sub, out);
    if (stage.op === '$lookup' || stage.op === '$unionWith') {
      const spec = stage.spec as LookupSpec<S> | UnionSpec<S>;
      out.push(spec.read);
      foreignReadsOf(spec.read.head, out);
      if ('cached' in spec) foreignReadsOf(spec.cached, out);
      foreignReadsOf(spec.rest, out);
    }
  }
  return out;
}
