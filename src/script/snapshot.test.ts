// A sandbox thread's memory snapshot (snapshot.ts, engine-worker.ts): the layout read from the shipped engine, the
// copy and its restore, and executions on one thread that start from the snapshot yet share nothing.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from './engine-pool.js';
import type { Job } from './protocol.js';
import { sandboxMemory } from './realm.js';
import { ENGINE_STACK_BYTES, memoryLayout, restoreSnapshot, takeSnapshot } from './snapshot.js';

const engine = readFileSync(
  createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm'),
);

describe('the engine memory layout', () => {
  it('is read from the shipped engine: static data, then the 5 MiB stack, then the heap', () => {
    const layout = memoryLayout(engine);
    // A rebuilt engine with another layout turns snapshots off (fresh contexts, several times slower): this fails
    // first, so the dependency bump is looked at.
    expect(layout).toBeDefined();
    expect(layout?.heapStart).toBe((layout?.staticEnd ?? 0) + ENGINE_STACK_BYTES);
    expect(layout?.staticEnd).toBeGreaterThan(1024);
  });

  it('is refused when the binary is not WebAssembly or the stack is not where it is assumed', () => {
    expect(memoryLayout(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]))).toBeUndefined();
    expect(memoryLayout(engine.subarray(0, 8))).toBeUndefined();
    // A smaller stack than assumed would leave static data past staticEnd; a larger one would overlap the data.
    expect(memoryLayout(engine, 1024 * 1024)).toBeUndefined();
    expect(memoryLayout(engine, 6 * 1024 * 1024)).toBeUndefined();
  });
});

describe('a snapshot of a memory', () => {
  it('puts back the static part and the heap up to its last non-zero byte, and nothing else', () => {
    const memory = sandboxMemory(1024 * 1024) as { buffer: ArrayBuffer };
    const layout = { staticEnd: 4096, heapStart: 65536 };
    const bytes = new Uint8Array(memory.buffer);
    bytes.fill(7, 100, 4000);
    bytes.fill(9, 65536, 70000);
    bytes[70100] = 3;
    const snap = takeSnapshot(memory, layout);
    expect(snap.statics.length).toBe(4096);
    // The heap's copy ends past its last non-zero byte (70100), with the allocator's header in full.
    expect(snap.heap.length).toBeGreaterThanOrEqual(70101 - 65536);
    expect(snap.heap.length).toBeLessThanOrEqual(70101 - 65536 + 16);
    bytes.fill(1, 0, 4096);
    bytes.fill(2, 65536, 80000);
    bytes[10000] = 5; // the stack: not state between executions, left as it is
    restoreSnapshot(memory, snap);
    expect(bytes[99]).toBe(0);
    expect(bytes[100]).toBe(7);
    expect(bytes[4000]).toBe(0);
    expect(bytes[65536]).toBe(9);
    expect(bytes[69999]).toBe(9);
    expect(bytes[70000]).toBe(0);
    expect(bytes[70100]).toBe(3);
    expect(bytes[10000]).toBe(5);
  });
});

const job = (source: string, timeLimitMs = 2000): Job => ({
  name: 'event/snapshot',
  source,
  data: { n: 1 },
  context: { stage: 'preview', apiKey: 'snapshot', playerId: null },
  scriptData: {},
  errors: {},
  timeLimitMs,
  deadline: 0,
  memoryBytes: 16 << 20,
  scriptDataBytes: 1 << 20,
  logLines: 10,
});

describe('executions on one thread from its snapshot', () => {
  let pool: EnginePool;
  const host = async () => undefined;

  beforeAll(async () => {
    pool = new EnginePool(1, 10, 16 << 20);
    await pool.warm();
  });

  afterAll(async () => {
    await pool?.close();
  });

  it('the thread runs from a snapshot', () => {
    expect(pool.snapshotThreads).toBe(1);
  });

  it('Math.random is seeded anew for each execution, in [0, 1)', async () => {
    const src = 'var a = []; for (var i = 0; i < 4; i++) a.push(Math.random()); Spark.setScriptData("r", a);';
    const first = (await pool.run('g', job(src), host)).scriptData.r as number[];
    const second = (await pool.run('g', job(src), host)).scriptData.r as number[];
    for (const x of [...first, ...second]) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
    expect(new Set(first).size).toBe(4);
    expect(second).not.toEqual(first);
  });

  it('after a timeout, an out-of-memory and an uncaught error, the next execution starts clean', async () => {
    const probe = job('Spark.setScriptData("seen", typeof leak + ":" + [].leak + ":" + Spark.getData().n);');
    const loop = await pool.run(
      'g',
      job('globalThis.leak = 1; Array.prototype.leak = 1; for (;;) {}', 300),
      host,
    );
    expect(loop.outcome).toBe('timeout');
    expect((await pool.run('g', probe, host)).scriptData.seen).toBe('undefined:undefined:1');
    // 100 KB strings: the 16 MB cap is reached in a few hundred turns, well inside a budget of 20 s on a busy machine.
    const bomb = await pool.run(
      'g',
      job(
        'globalThis.leak = 1; var a = []; for (;;) a.push(new Array(100000).join("x") + a.length);',
        20_000,
      ),
      host,
    );
    expect(bomb.outcome).toBe('error');
    expect(bomb.failure?.message).toContain('out of memory');
    expect((await pool.run('g', probe, host)).scriptData.seen).toBe('undefined:undefined:1');
    const thrown = await pool.run('g', job('Array.prototype.leak = 2; throw new Error("boom");'), host);
    expect(thrown.outcome).toBe('error');
    expect((await pool.run('g', probe, host)).scriptData.seen).toBe('undefined:undefined:1');
    // Still the same thread, still from its snapshot.
    expect(pool.snapshotThreads).toBe(1);
  });
});
