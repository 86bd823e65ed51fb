// A find's answer without projection, rendered where it is read: each stored text goes to wire JSON through
// the scanner (query/stored-wire.ts), on the event loop, in bounded slices. The scanner answers in one pass
// over the text, so a batch needs no trip to a compute thread and back (two copies of every text); between
// slices the loop serves other requests. A document larger than a slice is still rendered on a compute
// thread, as every batch was before.
import { OFFLOAD_BYTES } from '../compute/compute.js';
import { storedTextToWire } from '../query/stored-wire.js';
import type { DocumentCompute } from './compute-tasks.js';

/** Text scanned between two turns of the event loop (a few milliseconds of scanning on this machine). */
export const RENDER_SLICE_BYTES = 256 * 1024;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The wire texts of `batches` (stored texts, no projection), batch by batch. At most RENDER_SLICE_BYTES of
 * text are scanned before the next turn of the event loop; a text past OFFLOAD_BYTES goes to a compute thread.
 */
export async function* renderPlain(
  batches: AsyncIterable<string[]>,
  compute: DocumentCompute,
): AsyncGenerator<string[]> {
  let slice = 0;
  for await (const texts of batches) {
    const out: string[] = new Array(texts.length);
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i]!;
      if (text.length > OFFLOAD_BYTES) {
        const [wire] = await compute.run('render', { texts: [text], fields: undefined }, text.length);
        out[i] = wire!;
        continue;
      }
      if (slice + text.length > RENDER_SLICE_BYTES) {
        await nextTurn();
        slice = 0;
      }
      slice += text.length;
      out[i] = storedTextToWire(text);
    }
    yield out;
  }
}
