// renderPlain: stored texts to wire JSON in slices between turns of the event loop (counted in turns, never in
// milliseconds), a text past OFFLOAD_BYTES handed to the compute tasks, and the walk's bytes.
import { describe, expect, it } from 'vitest';
import { type Compute, inline, OFFLOAD_BYTES } from '../compute/compute.js';
import { storedTextToWireParsed } from '../query/stored-form.js';
import { type DocumentTasks, documentTasks } from './compute-tasks.js';
import { RENDER_SLICE_BYTES, renderPlain } from './find-render.js';

async function* inMemory(batches: string[][]): AsyncGenerator<string[]> {
  for (const batch of batches) yield batch;
}

/** The real tasks, run here, with the names of those asked for recorded. */
function recording(): { compute: Compute<DocumentTasks>; asked: string[] } {
  const here = inline(documentTasks);
  const asked: string[] = [];
  return {
    asked,
    compute: {
      run: (name, input, size, db) => {
        asked.push(name);
        return here.run(name, input, size, db);
      },
    },
  };
}

async function render(batches: string[][]) {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const { compute, asked } = recording();
  const out: string[] = [];
  try {
    for await (const texts of renderPlain(inMemory(batches), compute)) out.push(...texts);
  } finally {
    running = false;
  }
  return { out, turns, asked };
}

const doc = (i: number) =>
  `{"$o": ["_id", "when", "pad"], "_id": {"$oid": "${i.toString(16).padStart(24, '0')}"}, "pad": "${'p'.repeat(1000)}", "when": {"$date": ${1_700_000_000_000 + i}}}`;

describe('renderPlain', () => {
  it('4 MB in one batch: scanned in slices, other turns of the event loop run between them', async () => {
    const texts = Array.from({ length: 4000 }, (_, i) => doc(i));
    const bytes = texts.reduce((n, t) => n + t.length, 0);
    const { out, turns, asked } = await render([texts]);
    expect(out).toEqual(texts.map(storedTextToWireParsed));
    // One turn at least per slice past the first: the whole batch never runs in one turn.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(bytes / RENDER_SLICE_BYTES) - 1);
    expect(asked).toEqual([]);
  });

  it('a text past OFFLOAD_BYTES goes to the compute tasks; the others are scanned here, in order', async () => {
    const big = `{"big": "${'b'.repeat(OFFLOAD_BYTES + 10)}", "when": {"$date": 0}}`;
    const texts = [doc(1), big, doc(2)];
    const { out, asked } = await render([texts.slice(0, 2), texts.slice(2)]);
    expect(out).toEqual(texts.map(storedTextToWireParsed));
    expect(asked).toEqual(['render']);
  });
});
