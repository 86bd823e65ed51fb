// A sandbox thread's memory snapshot (engine-worker.ts): the thread makes its QuickJS runtime and one context with
// the bridges and the Spark prelude once, copies the parts of its WebAssembly memory that hold live state, and
// copies them back after each execution. Every execution then starts from exactly the same state (its global
// object, built-ins, the runtime's atoms and allocator), as a fresh context would, without compiling the prelude
// again (docs/cloud-code.md, "The sandbox").
//
// Emscripten lays the memory out as [static data and BSS][the C stack, growing down][the heap, growing up]. Between
// executions the stack is empty (the stack pointer is back at its top), so what holds state is the static part
// below the stack and the heap above it, up to the allocator's top chunk. The stack pointer's first value (the
// stack's top, which is also where the heap starts) is the one mutable global of the module; the stack's size
// is not in the binary, so the layout is checked against the data segments and refused when it does not fit.

/** The C stack of the QuickJS build (`-sSTACK_SIZE`): 5 MiB in @jitl/quickjs-wasmfile-release-sync 0.32.0. */
export const ENGINE_STACK_BYTES = 5 * 1024 * 1024;

/** Where the state of a thread's memory lies: [0, staticEnd) and [heapStart, the heap's top). */
export interface MemoryLayout {
  staticEnd: number;
  heapStart: number;
}

/** Unsigned LEB128 at `at`: the value and the offset after it. */
function uleb(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  let i = at;
  for (;;) {
    const b = bytes[i++] as number;
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b & 0x80) === 0) return [value, i];
    if (shift > 35) throw new Error('LEB128 too long');
  }
}

/** Signed LEB128 (i32) at `at`. */
function sleb(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  let i = at;
  let b: number;
  do {
    b = bytes[i++] as number;
    value |= (b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80 && shift < 35);
  if (shift < 32 && b & 0x40) value |= -1 << shift;
  return [value, i];
}

/**
 * The layout of the engine's memory, read from its WebAssembly binary: the stack pointer's first value (global 0,
 * a mutable i32 set by `i32.const`) and the end of the active data segments. Undefined when the binary does not
 * have the expected shape: the thread then makes a fresh context for each execution, as before.
 */
export function memoryLayout(wasm: Uint8Array, stackBytes = ENGINE_STACK_BYTES): MemoryLayout | undefined {
  if (wasm.length < 8 || wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d)
    return undefined;
  let stackTop: number | undefined;
  let globals = 0;
  let dataEnd = 0;
  let at = 8;
  try {
    while (at < wasm.length) {
      const id = wasm[at++] as number;
      const [size, body] = uleb(wasm, at);
      const end = body + size;
      if (id === 6) {
        // Globals: the first is __stack_pointer (mutable i32, i32.const <top>).
        let p: number;
        [globals, p] = uleb(wasm, body);
        if (globals < 1 || wasm[p] !== 0x7f || wasm[p + 1] !== 1 || wasm[p + 2] !== 0x41) return undefined;
        [stackTop] = sleb(wasm, p + 3);
      } else if (id === 11) {
        let [count, p] = uleb(wasm, body);
        for (; count > 0; count--) {
          let flag: number;
          [flag, p] = uleb(wasm, p);
          // Only active segments of memory 0 at a constant offset are expected in this build.
          if (flag !== 0 || wasm[p] !== 0x41) return undefined;
          let offset: number;
          [offset, p] = sleb(wasm, p + 1);
          if (wasm[p] !== 0x0b) return undefined;
          let length: number;
          [length, p] = uleb(wasm, p + 1);
          dataEnd = Math.max(dataEnd, offset + length);
          p += length;
        }
      }
      at = end;
    }
  } catch {
    return undefined;
  }
  if (stackTop === undefined || globals !== 1) return undefined;
  const staticEnd = stackTop - stackBytes;
  // The static part ends where the stack begins: past the data segments, by no more than a BSS's worth. A stack
  // of another size (a rebuilt engine) puts staticEnd elsewhere, and the snapshot is not used.
  if (staticEnd < dataEnd || staticEnd - dataEnd > 64 * 1024) return undefined;
  return { staticEnd, heapStart: stackTop };
}

/** The live state of a memory at one moment, to be copied back. */
export interface MemorySnapshot {
  layout: MemoryLayout;
  statics: Uint8Array;
  heap: Uint8Array;
}

/**
 * Copies the state of `memory`. The heap's state ends at its last non-zero byte: the allocator keeps a header
 * (its size, never zero) at the start of the free space above the last block it handed out, so every live block
 * lies below that byte; what is above it is free, and its contents do not matter.
 */
export function takeSnapshot(memory: { buffer: ArrayBuffer }, layout: MemoryLayout): MemorySnapshot {
  const bytes = new Uint8Array(memory.buffer);
  // Four bytes at a time down to the last non-zero word, then to its last non-zero byte.
  const words = new Uint32Array(memory.buffer, 0, Math.floor(bytes.length / 4));
  let w = words.length - 1;
  const first = Math.floor(layout.heapStart / 4);
  while (w >= first && words[w] === 0) w--;
  let top = Math.min(bytes.length, (w + 1) * 4);
  while (top > layout.heapStart && bytes[top - 1] === 0) top--;
  // A few bytes past it: the top chunk's header in full.
  top = Math.min(bytes.length, top + 16);
  return {
    layout,
    statics: bytes.slice(0, layout.staticEnd),
    heap: bytes.slice(layout.heapStart, top),
  };
}

/** Puts the state back: the memory is as it was when the snapshot was taken. */
export function restoreSnapshot(memory: { buffer: ArrayBuffer }, snapshot: MemorySnapshot): void {
  const bytes = new Uint8Array(memory.buffer);
  bytes.set(snapshot.statics, 0);
  bytes.set(snapshot.heap, snapshot.layout.heapStart);
}
