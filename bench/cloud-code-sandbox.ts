// The sandbox alone (bench/cloud-code.ts): where the time of one execution goes inside its thread (a new QuickJS
// context, the Spark prelude, the script, the disposal; measured here on this thread, with the worker's own
// settings), the full round trip of a trivial script through a sandbox thread, and the cost of one host call
// (the thread waits while the event loop answers).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as variantModule from '@jitl/quickjs-wasmfile-release-sync';
import {
  DefaultIntrinsics,
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';
import { prepareContext } from '../src/script/engine-context.js';
import { EnginePool } from '../src/script/engine-pool.js';
import { LIBS, PRELUDE } from '../src/script/prelude.js';
import type { Job } from '../src/script/protocol.js';
import { API_EVAL, INTRINSICS, STACK_BYTES, sandboxMemory } from '../src/script/realm.js';
import { memoryLayout, restoreSnapshot, takeSnapshot } from '../src/script/snapshot.js';

const ROUNDS = 1000;
/** The median in µs: on a shared machine a mean is mostly the other processes' time slices. */
const median = (ms: number[]) => Number(((ms.sort((a, b) => a - b)[ms.length >> 1] ?? 0) * 1000).toFixed(1));

/** Median µs of each part of an execution on this thread, with the worker's context options. */
export async function sandboxParts() {
  const module = await newQuickJSWASMModuleFromVariant(
    variantModule.default as unknown as QuickJSSyncVariant,
  );
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(64 << 20);
  runtime.setMaxStackSize(STACK_BYTES);
  const sum = {
    context: [] as number[],
    contextAllIntrinsics: [] as number[],
    prelude: [] as number[],
    script: [] as number[],
    collectionsLib: [] as number[],
    dispose: [] as number[],
  };
  const script = 'Spark.setScriptData("score", Spark.getData().SCORE);';
  for (let i = 0; i < ROUNDS + 100; i++) {
    const t0 = performance.now();
    const full = runtime.newContext({ intrinsics: DefaultIntrinsics });
    const t1 = performance.now();
    full.dispose();
    const t2 = performance.now();
    const ctx = runtime.newContext({ intrinsics: INTRINSICS });
    const t3 = performance.now();
    for (const name of ['__host', '__local', '__lib']) {
      const fn = ctx.newFunction(name, (op) => {
        const o = ctx.getString(op);
        if (o === 'data') return ctx.newString('{"SCORE":1}');
        if (o === 'context') return ctx.newString('{"stage":"preview","apiKey":"bench","playerId":null}');
        return ctx.undefined;
      });
      ctx.setProp(ctx.global, name, fn);
      fn.dispose();
    }
    ctx.unwrapResult(ctx.evalCode(PRELUDE, 'prelude.js', API_EVAL)).dispose();
    const t4 = performance.now();
    ctx.unwrapResult(ctx.evalCode(script, 'event/bench.js')).dispose();
    const t5 = performance.now();
    ctx.unwrapResult(ctx.evalCode(LIBS.collections as string, 'spark-collections.js', API_EVAL)).dispose();
    const t6 = performance.now();
    ctx.dispose();
    const t7 = performance.now();
    if (i < 100) continue;
    sum.contextAllIntrinsics.push(t1 - t0);
    sum.context.push(t3 - t2);
    sum.prelude.push(t4 - t3);
    sum.script.push(t5 - t4);
    sum.collectionsLib.push(t6 - t5);
    sum.dispose.push(t7 - t6);
  }
  runtime.dispose();
  const figure = {
    name: 'sandbox parts, median µs on one thread',
    newContextUs: median(sum.context),
    newContextWithTypedArraysUs: median(sum.contextAllIntrinsics),
    bridgeAndPreludeUs: median(sum.prelude),
    trivialScriptUs: median(sum.script),
    collectionsLibUs: median(sum.collectionsLib),
    disposeUs: median(sum.dispose),
    ...(await snapshotRestore()),
  };
  console.log(`${figure.name}: ${JSON.stringify(figure)}`);
  return figure;
}

/**
 * What a thread does instead of the parts above since snapshots (snapshot.ts): put its memory back to the state
 * after the prelude and every library were compiled. Median µs of a restore, and the bytes it copies.
 */
async function snapshotRestore() {
  const layout = memoryLayout(
    readFileSync(createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm')),
  );
  if (!layout) return { snapshotRestoreUs: null, snapshotBytes: null };
  const memory = sandboxMemory(64 << 20) as { buffer: ArrayBuffer };
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(variantModule.default as unknown as QuickJSSyncVariant, { wasmMemory: memory as never }),
  );
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(64 << 20);
  runtime.setMaxStackSize(STACK_BYTES);
  prepareContext(runtime, Object.keys(LIBS));
  const snap = takeSnapshot(memory, layout);
  const times: number[] = [];
  for (let i = 0; i < ROUNDS + 100; i++) {
    const t = performance.now();
    restoreSnapshot(memory, snap);
    if (i >= 100) times.push(performance.now() - t);
  }
  return { snapshotRestoreUs: median(times), snapshotBytes: snap.statics.length + snap.heap.length };
}

const job = (source: string): Job => ({
  name: 'event/bench',
  source,
  data: {},
  context: { stage: 'preview', apiKey: 'bench', playerId: null },
  scriptData: {},
  errors: {},
  timeLimitMs: 2000,
  deadline: 0,
  memoryBytes: 64 << 20,
  scriptDataBytes: 1 << 20,
  logLines: 10,
});

async function timeRuns(pool: EnginePool, j: Job, host: () => Promise<string | undefined>, n: number) {
  for (let i = 0; i < 50; i++) await pool.run('bench', j, host);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await pool.run('bench', j, host);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return (q: number) => Number((times[Math.floor(q * (times.length - 1))] ?? 0).toFixed(3));
}

/** A trivial script's full round trip through a thread, and the cost of one host call, after warming. */
export async function startCost() {
  const pool = new EnginePool(1, 10);
  await pool.warm();
  const trivial = await timeRuns(pool, job('Spark.setScriptData("x", 1);'), async () => undefined, 500);
  const calls = await timeRuns(
    pool,
    job('var c = Spark.getCache(); for (var i = 0; i < 100; i++) c.get("k"); Spark.setScriptData("x", 1);'),
    async () => undefined,
    100,
  );
  await pool.close();
  const figure = {
    name: 'execution start to end, trivial script (sandbox only)',
    p50Ms: trivial(0.5),
    p99Ms: trivial(0.99),
    hostCallUs: Number((((calls(0.5) - trivial(0.5)) / 100) * 1000).toFixed(1)),
  };
  console.log(
    `${figure.name}: p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms; one host call ≈ ${figure.hostCallUs} µs (p50 of 100 calls)`,
  );
  return figure;
}
