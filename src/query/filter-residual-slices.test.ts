// residualMatches: the residual check of a read in bounded slices between turns of the event loop, counted in
// turns (a ticker re-armed with setImmediate advances once per turn), never in milliseconds; the cap on
// documents tested; maxTimeMS between slices; and the same matches as testing every document at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { matchesFilter, parseFilter } from './filter.js';
import {
  RESIDUAL_SLICE_BYTES,
  RESIDUAL_SLICE_DOCS,
  type ResidualOptions,
  residualMatches,
} from './filter-residual.js';
import type { Doc } from './values.js';

const parse = (text: string) => JSON.parse(text) as Doc;
const filter = parseFilter({ $expr: { $gt: ['$a', '$b'] } });

async function* inMemory(batches: string[][], pause = 0): AsyncGenerator<string[]> {
  for (const batch of batches) {
    if (pause > 0) await sleep(pause);
    yield batch;
  }
}

/** The matches, and the turns of the event loop that passed while they were computed. */
async function collect(batches: AsyncIterable<string[]>, options: ResidualOptions = {}) {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const out: string[] = [];
  try {
    for await (const texts of residualMatches(filter, batches, parse, options)) out.push(...texts);
  } finally {
    running = false;
  }
  return { out, turns };
}

const docs = (n: number, pad = 0) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ _id: i, a: i % 3, b: 1, pad: 'x'.repeat(pad) }));

function failure(e: unknown): string {
  return isPlaybaseError(e) ? `${e.status} ${e.code}` : String(e);
}

describe('residual check in slices', () => {
  it('one batch of 1,000 documents in memory: the event loop turns between every slice of 100', async () => {
    const batch = docs(1000);
    const { out, turns } = await collect(inMemory([batch]));
    expect(out).toEqual(batch.filter((t) => matchesFilter(filter, parse(t))));
    // Without slices no turn would pass at all: the source never waits.
    expect(turns).toBeGreaterThanOrEqual(1000 / RESIDUAL_SLICE_DOCS - 1);
  });

  it('large documents: a slice ends at 256 KB of text', async () => {
    const batch = docs(20, 100 * 1024);
    const { out, turns } = await collect(inMemory([batch]));
    expect(out.length).toBe(batch.filter((t) => matchesFilter(filter, parse(t))).length);
    const perSlice = Math.ceil(RESIDUAL_SLICE_BYTES / (100 * 1024));
    expect(turns).toBeGreaterThanOrEqual(Math.floor(20 / perSlice) - 1);
  });

  it('past the cap on tested documents: 400 QUERY_RESIDUAL_SCAN_LIMIT', async () => {
    const error = await collect(inMemory([docs(60), docs(60)]), { maxScanned: 100 }).catch((e) => e);
    expect(failure(error)).toBe('400 QUERY_RESIDUAL_SCAN_LIMIT');
    expect(isPlaybaseError(error) && error.message).toContain('100 documents');
    const fine = await collect(inMemory([docs(50), docs(50)]), { maxScanned: 100 });
    expect(fine.out.length).toBeGreaterThan(0);
  });

  it('maxTimeMS is checked between slices: 503 QUERY_MAX_TIME_EXPIRED', async () => {
    // The source waits 5 ms before its batch, so a limit of 1 ms has surely passed at the first slice's end.
    const error = await collect(inMemory([docs(300)], 5), { maxTimeMs: 1 }).catch((e) => e);
    expect(failure(error)).toBe('503 QUERY_MAX_TIME_EXPIRED');
  });

  it('a consumer that stops early closes the read: nothing more is tested', async () => {
    let pulled = 0;
    async function* counting(): AsyncGenerator<string[]> {
      for (let i = 0; i < 10; i++) {
        pulled++;
        yield docs(100);
      }
    }
    for await (const texts of residualMatches(filter, counting(), parse)) if (texts.length > 0) break;
    expect(pulled).toBe(1);
  });
});
