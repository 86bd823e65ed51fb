// Aggregation pipelines in JavaScript: parse and validate the stages, run them over a stream of documents,
// and split off the leading $match/$sort/$skip/$limit that a SQL layer can run instead.

import { parseFieldPath } from './aggregate-expr.js';
import {
  EXTRA_RAW_ARGUMENT,
  type ExtraStage,
  extraParsers,
  extraProcessor,
  type PipelineRead,
} from './aggregate-extra.js';
import { type GroupSpec, parseGroup } from './aggregate-group.js';
import { countStages, MAX_LOOKUP_WORK, type NestedRun } from './aggregate-nested.js';
import { parseMatchExpr } from './aggregate-reshape.js';
import {
  countProcessor,
  type Emit,
  groupProcessor,
  limitProcessor,
  matchProcessor,
  type Processor,
  projectProcessor,
  skipProcessor,
  sortProcessor,
  type UnwindSpec,
  unwindProcessor,
} from './aggregate-stages.js';
import { queryErrors } from './errors.js';
import { type FilterNode, parseFilter } from './filter.js';
import { pipelineErrors } from './pipeline-errors.js';
import { type Projection, parseProjectStage } from './projection.js';
import { sharingRegexBudget } from './regex-vm.js';
import { parseSort, type SortSpec } from './sort.js';
import { type Doc, fromWire, isDoc, type Value } from './values.js';

/** Documents a $group or $sort may hold in memory unless the caller says otherwise. */
const DEFAULT_MAX_BUFFERED = 100_000;
/** MongoDB's own bound on the stages of one pipeline. */
export const MAX_PIPELINE_STAGES = 1000;

export type PipelineStage =
  | { op: '$match'; raw: unknown; node: FilterNode }
  | { op: '$group'; spec: GroupSpec }
  | { op: '$sort'; raw: unknown; spec: SortSpec }
  | { op: '$skip'; n: number }
  | { op: '$limit'; n: number }
  | { op: '$project'; projection: Projection }
  | { op: '$unwind'; spec: UnwindSpec }
  | { op: '$count'; field: string }
  | ExtraStage;

export type { PipelineRead } from './aggregate-extra.js';

export interface PipelineOptions {
  /** Most documents (or groups plus accumulated values) one $sort or $group may hold; past it: 400. */
  maxBuffered?: number;
  /** $$NOW for every expression of the run (MongoDB: one instant per aggregation); by default when it starts. */
  now?: Date;
  /**
   * The documents of another collection for $lookup and $unionWith (read as `read.pushdown` says, or as
   * `read.head` would leave them); the caller checks the request may read the collection. None: such stages 400.
   */
  foreign?: (read: PipelineRead) => Doc[];
  /** Most documents $lookup sub-pipelines may be fed in one run (MAX_LOOKUP_WORK unless the caller says). */
  maxLookupWork?: number;
  /** Shared by the nested runs of one pipeline ($lookup's work bound). */
  work?: { fed: number; max: number };
}

type PipelineStageParser = (arg: Value) => PipelineStage | PipelineStage[];

const PARSERS: Record<string, PipelineStageParser> = {
  $match: (raw) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw pipelineErrors.badStage('$match', 'the filter must be a document');
    }
    // $expr at the top runs in memory (it may read a $lookup's variables): never pushed down.
    if (Object.hasOwn(raw, '$expr'))
      return { op: '$matchExpr', spec: parseMatchExpr(raw as Record<string, unknown>) };
    return { op: '$match', raw, node: parseFilter(raw) };
  },
  $group: (arg) => ({ op: '$group', spec: parseGroup(arg) }),
  $sort: (raw) => ({ op: '$sort', raw, spec: parseSort(raw) }),
  $skip: (arg) => ({ op: '$skip', n: parseCount('$skip', arg, 0) }),
  $limit: (arg) => ({ op: '$limit', n: parseCount('$limit', arg, 1) }),
  $project: (arg) => ({ op: '$project', projection: parseProjectStage(arg) }),
  $unwind: (arg) => ({ op: '$unwind', spec: parseUnwind(arg) }),
  $count: (arg) => ({ op: '$count', field: parseCountField(arg) }),
  // The stages of issue 16 (aggregate-extra.ts).
  ...extraParsers({
    parse: (raw) => parseStages(raw),
    split: (stages) => splitPushdown(stages),
    isMatch: (stage) => stage.op === '$match',
  }),
};

/**
 * Stages whose argument goes to its parser as sent: filters and sorts (kept that way for pushdown), and the
 * stages holding sub-pipelines (parsed as pipelines are).
 */
const RAW_ARGUMENT = new Set(['$match', '$sort', ...EXTRA_RAW_ARGUMENT]);

/** Validates a pipeline as sent (extended JSON, as JSON.parse returns it): an array of one-key stages. */
export function parsePipeline(pipeline: unknown): PipelineStage[] {
  // One $regex step budget for the whole pipeline, however many $match stages and predicates it holds.
  const stages = sharingRegexBudget(() => parseStages(pipeline));
  // Every document passes each stage of every sub-pipeline ($facet's fan out): the bound counts them all.
  if (countStages(stages) > MAX_PIPELINE_STAGES)
    throw queryErrors.tooLarge('stages in a pipeline, sub-pipelines included', MAX_PIPELINE_STAGES);
  return stages;
}

function parseStages(pipeline: unknown): PipelineStage[] {
  if (!Array.isArray(pipeline)) throw pipelineErrors.badPipeline('the pipeline must be an array of stages');
  if (pipeline.length > MAX_PIPELINE_STAGES)
    throw queryErrors.tooLarge('stages in a pipeline', MAX_PIPELINE_STAGES);
  return pipeline.flatMap((stage: unknown) => {
    if (typeof stage !== 'object' || stage === null || Array.isArray(stage)) {
      throw pipelineErrors.badPipeline('each stage must be a document');
    }
    const keys = Object.keys(stage);
    if (keys.length !== 1) throw pipelineErrors.badPipeline('each stage must have exactly one field');
    const op = keys[0]!;
    if (!Object.hasOwn(PARSERS, op)) throw pipelineErrors.unknownStage(op);
    const raw = (stage as Record<string, unknown>)[op];
    const arg = RAW_ARGUMENT.has(op) ? (raw as Value) : fromWire(raw, { allowDollarKeys: true });
    return PARSERS[op]!(arg);
  });
}

function parseCount(stage: string, v: Value, min: number): number {
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min) {
    throw pipelineErrors.badStage(stage, `expected an integer of at least ${min}`);
  }
  return n;
}

function parseUnwind(arg: Value): UnwindSpec {
  const bad = (why: string) => pipelineErrors.badStage('$unwind', why);
  const opts = isDoc(arg) ? arg : { path: arg };
  for (const key of Object.keys(opts)) {
    if (!['path', 'includeArrayIndex', 'preserveNullAndEmptyArrays'].includes(key))
      throw bad(`unrecognized option ${key}`);
  }
  const { path, includeArrayIndex, preserveNullAndEmptyArrays } = opts;
  if (typeof path !== 'string' || !path.startsWith('$') || path.startsWith('$$')) {
    throw bad("the path must be a string field path starting with '$'");
  }
  if (preserveNullAndEmptyArrays !== undefined && typeof preserveNullAndEmptyArrays !== 'boolean') {
    throw bad('preserveNullAndEmptyArrays must be a boolean');
  }
  if (includeArrayIndex !== undefined) {
    if (
      typeof includeArrayIndex !== 'string' ||
      includeArrayIndex === '' ||
      includeArrayIndex.startsWith('$')
    ) {
      throw bad('includeArrayIndex must be a non-empty field name not starting with $');
    }
    if (includeArrayIndex.includes('.')) throw bad('a dotted includeArrayIndex is not supported');
  }
  return {
    path: parseFieldPath(path.slice(1), '$unwind'),
    includeArrayIndex,
    preserveNullAndEmptyArrays: preserveNullAndEmptyArrays === true,
  };
}

function parseCountField(arg: Value): string {
  if (typeof arg !== 'string' || arg === '' || arg.startsWith('$') || arg.includes('.')) {
    throw pipelineErrors.badStage('$count', 'expected a non-empty field name without $ or .');
  }
  return arg;
}

/** Runs a parsed pipeline over documents, streaming; it stops reading input once a $limit is full. */
export async function* runPipeline(
  stages: PipelineStage[],
  docs: AsyncIterable<Doc> | Iterable<Doc>,
  options: PipelineOptions = {},
): AsyncGenerator<Doc> {
  const chain = buildChain(stages, options);
  for await (const doc of docs) {
    yield* chain.push(doc);
    if (chain.finished()) break;
  }
  yield* chain.flush();
}

/** The same over an in-memory list, returning an array. */
export function runPipelineSync(
  stages: PipelineStage[],
  docs: Iterable<Doc>,
  options: PipelineOptions = {},
): Doc[] {
  const chain = buildChain(stages, options);
  const out: Doc[] = [];
  // Loops, not push(...batch): one input document may emit more outputs ($unwind) than a call can take.
  const keep = (batch: Doc[]) => {
    for (const doc of batch) out.push(doc);
  };
  for (const doc of docs) {
    keep(chain.push(doc));
    if (chain.finished()) break;
  }
  keep(chain.flush());
  return out;
}

interface Chain {
  push(doc: Doc): Doc[];
  flush(): Doc[];
  finished(): boolean;
}

function buildChain(stages: PipelineStage[], options: PipelineOptions): Chain {
  const cap = options.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  // The clock is read once here, never by the expression evaluator.
  const now = options.now ?? new Date();
  const nested: NestedRun<PipelineStage> = {
    read: (read) => {
      if (options.foreign === undefined)
        throw pipelineErrors.badStage('$lookup', 'no other collection can be read here');
      return options.foreign(read);
    },
    run: (sub, docs) => runPipelineSync(sub, docs, { ...options, now, work: nested.work }),
    cap,
    now,
    work: options.work ?? { fed: 0, max: options.maxLookupWork ?? MAX_LOOKUP_WORK },
  };
  const chainOf = (sub: PipelineStage[]) => buildChain(sub, { ...options, now, work: nested.work });
  const processors = stages.map((stage, i) =>
    makeProcessor(stage, cap, keptBySort(stages, i), now, nested, chainOf),
  );
  let out: Doc[] = [];
  const emits: Emit[] = [];
  for (let i = processors.length - 1; i >= 0; i--) {
    const next = processors[i + 1];
    const nextEmit = emits[i + 1];
    emits[i] = next && nextEmit ? (doc) => next.push(doc, nextEmit) : (doc) => out.push(doc);
  }
  const first = (doc: Doc) => (processors[0] && emits[0] ? processors[0].push(doc, emits[0]) : out.push(doc));
  const take = () => {
    const taken = out;
    out = [];
    return taken;
  };
  return {
    push: (doc) => {
      first(doc);
      return take();
    },
    flush: () => {
      processors.forEach((p, i) => {
        p.flush(emits[i]!);
      });
      return take();
    },
    finished: () => processors.some((p) => p.finished()),
  };
}

function makeProcessor(
  stage: PipelineStage,
  cap: number,
  keep: number | undefined,
  now: Date,
  nested: NestedRun<PipelineStage>,
  chainOf: (stages: PipelineStage[]) => Chain,
): Processor {
  switch (stage.op) {
    case '$match':
      return matchProcessor(stage.node);
    case '$group':
      return groupProcessor(stage.spec, cap, now);
    case '$sort':
      return sortProcessor(stage.spec, cap, keep);
    case '$skip':
      return skipProcessor(stage.n);
    case '$limit':
      return limitProcessor(stage.n);
    case '$project':
      return projectProcessor(stage.projection, now);
    case '$unwind':
      return unwindProcessor(stage.spec);
    case '$count':
      return countProcessor(stage.field);
    default:
      return extraProcessor(stage, cap, now, nested, chainOf);
  }
}

/** For a $sort followed by $skip/$limit stages: how many of its first documents can reach the output. */
function keptBySort(stages: PipelineStage[], i: number): number | undefined {
  if (stages[i]?.op !== '$sort') return undefined;
  const window = foldSkipLimit(stages, i + 1);
  return window.limit === undefined ? undefined : window.skip + window.limit;
}

/** Folds a run of $skip/$limit stages from `start` into one OFFSET/LIMIT window. */
function foldSkipLimit(
  stages: PipelineStage[],
  start: number,
): { skip: number; limit: number | undefined; end: number } {
  let skip = 0;
  let limit: number | undefined;
  let end = start;
  for (; end < stages.length; end++) {
    const stage = stages[end]!;
    if (stage.op === '$skip') {
      skip += stage.n;
      if (limit !== undefined) limit = Math.max(0, limit - stage.n);
    } else if (stage.op === '$limit') {
      limit = limit === undefined ? stage.n : Math.min(limit, stage.n);
    } else {
      break;
    }
  }
  return { skip, limit, end };
}

/**
 * What SQL can do instead of the first stages: WHERE filter ORDER BY sort OFFSET skip LIMIT limit. The filter
 * and sort are in the form sent (for parseFilter / parseSort).
 */
export interface Pushdown {
  filter: unknown;
  sort: unknown;
  skip: number;
  limit: number | undefined;
}

/**
 * Splits off leading $match stages (combined with $and), then one $sort, then $skip/$limit stages folded
 * into one window. Running the pushdown in SQL and `rest` in JavaScript gives the pipeline's result.
 */
export function splitPushdown(stages: PipelineStage[]): { pushdown: Pushdown; rest: PipelineStage[] } {
  let i = 0;
  const filters: unknown[] = [];
  for (; stages[i]?.op === '$match'; i++)
    filters.push((stages[i] as Extract<PipelineStage, { op: '$match' }>).raw);
  let sort: unknown;
  const current = stages[i];
  if (current?.op === '$sort') {
    sort = current.raw;
    i++;
  }
  const window = foldSkipLimit(stages, i);
  const filter = filters.length === 0 ? undefined : filters.length === 1 ? filters[0] : { $and: filters };
  return {
    pushdown: { filter, sort, skip: window.skip, limit: window.limit },
    rest: stages.slice(window.end),
  };
}
