// A sandbox thread's snapshot (engine-worker.ts, snapshot.ts): its runtime and one context with the bridges, the
// prelude and every library compiled, as they were when it was taken. Each top-level execution runs in that
// context, and the memory is put back after it.
import type { QuickJSRuntime } from 'quickjs-emscripten-core';
import { type Prepared, prepareContext } from './engine-context.js';
import { LIBS } from './prelude.js';
import { STACK_BYTES } from './realm.js';
import { type MemoryLayout, type MemorySnapshot, restoreSnapshot, takeSnapshot } from './snapshot.js';

/**
 * The runtime's table of host functions lives on the JavaScript side: a copy of it now, and the function that puts
 * it back (nested contexts add and remove their bridges; the snapshot's own are never freed, as no script reaches
 * them).
 */
function keepHostRefs(runtime: QuickJSRuntime): () => void {
  type RefMap = { nextId: number; freelist: number[]; groups: Map<number, Map<number, unknown>> };
  const refs = (runtime as unknown as { hostRefs?: RefMap }).hostRefs;
  if (!refs || !(refs.groups instanceof Map) || !Array.isArray(refs.freelist)) return () => {};
  const nextId = refs.nextId;
  const freelist = [...refs.freelist];
  const groups = [...refs.groups].map(([k, m]) => [k, new Map(m)] as const);
  return () => {
    refs.nextId = nextId;
    refs.freelist = [...freelist];
    refs.groups = new Map(groups.map(([k, m]) => [k, new Map(m)]));
  };
}

export class ThreadSnapshot {
  private prepared: Prepared | undefined;
  private memory: MemorySnapshot | undefined;
  private refs: () => void = () => {};
  /** An execution ran since the memory was last put back. */
  private dirty = false;
  /** Set when the engine's layout is unknown or the snapshot failed: fresh contexts, as before snapshots. */
  private off: boolean;

  constructor(
    private readonly wasmMemory: { buffer: ArrayBuffer },
    private readonly layout: MemoryLayout | undefined,
  ) {
    this.off = layout === undefined;
  }

  /** The thread runs its top-level executions from the snapshot. */
  get active(): boolean {
    return this.prepared !== undefined;
  }

  /** Still to be taken (or to be tried): snapshots are not turned off. */
  get wanted(): boolean {
    return !this.off && !this.active;
  }

  /**
   * Takes the snapshot on a fresh runtime: the context, the bridges, the prelude and every library, then the copy.
   * A failure turns snapshots off for the thread; an abort of QuickJS ends the thread.
   */
  take(runtime: QuickJSRuntime, memoryBytes: number): void {
    if (!this.wanted || !this.layout) return;
    try {
      runtime.setMemoryLimit(memoryBytes);
      runtime.setMaxStackSize(STACK_BYTES);
      const prepared = prepareContext(runtime, Object.keys(LIBS));
      this.memory = takeSnapshot(this.wasmMemory, this.layout);
      this.refs = keepHostRefs(runtime);
      this.prepared = prepared;
    } catch (e) {
      // WebAssembly that aborted cannot run again: the pool replaces this thread (it holds no script now).
      if ((e as Error).message.startsWith('Aborted')) process.exit(1);
      this.off = true;
    }
  }

  /** Puts the memory back if an execution ran since: between executions, and before one if it was not done. */
  restore(): void {
    if (!this.dirty || !this.memory) return;
    restoreSnapshot(this.wasmMemory, this.memory);
    this.refs();
    this.dirty = false;
  }

  /** The context for a top-level execution, from the snapshot's state; undefined without a snapshot. */
  forExecution(): Prepared | undefined {
    if (!this.prepared) return undefined;
    this.restore();
    this.dirty = true;
    return this.prepared;
  }
}
