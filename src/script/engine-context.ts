// A sandbox thread's contexts (engine-worker.ts): a fresh QuickJS context with its two bridges (`__host`,
// `__local`), the library loader (`__lib`) and the Spark prelude evaluated. The prelude needs nothing of the
// execution (it reads the request's data and context at their first use), so a thread makes the next context
// while it waits for work, and an execution starts with its script. A context serves one execution only.
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { LIBS, PRELUDE } from './prelude.js';
import { API_EVAL, INTRINSICS } from './realm.js';

/** A stop asked by the script (Spark.exit) or by its budget: the script's evaluation ends. */
export class Stop extends Error {}

/** A module's own error: goes up the script's stack as it was thrown. */
export class ModuleError extends Error {
  constructor(readonly handle: QuickJSHandle) {
    super('module error');
  }
}

/** What the bridges answer: set to the execution's own calls when it starts, never before. */
export interface Calls {
  host(op: string, args: string): string | undefined;
  local(op: string, args: string): string | undefined;
}

export interface Prepared {
  runtime: QuickJSRuntime;
  ctx: QuickJSContext;
  /** The execution the bridges serve; unset, a bridge call fails. */
  bind(calls: Calls): void;
}

export function describe(
  ctx: QuickJSContext,
  handle: QuickJSHandle,
): { message: string; stack: string; name: string } {
  const dumped = ctx.dump(handle) as unknown;
  if (dumped && typeof dumped === 'object') {
    const d = dumped as { name?: unknown; message?: unknown; stack?: unknown };
    return {
      name: String(d.name ?? 'Error'),
      message: String(d.message ?? JSON.stringify(dumped)),
      stack: String(d.stack ?? ''),
    };
  }
  return { name: 'Error', message: String(dumped), stack: '' };
}

/** Evaluates part of the API in `ctx`; its failure (out of memory, an interrupt) disposes the context and is thrown. */
function evalApi(ctx: QuickJSContext, source: string, name: string): void {
  const result = ctx.evalCode(source, `${name}.js`, API_EVAL);
  if (result.error) {
    const d = describe(ctx, result.error);
    result.error.dispose();
    ctx.dispose();
    throw new Error(`${name}: ${d.message}`);
  }
  result.value.dispose();
}

/**
 * A new context of `runtime` with the bridges and the prelude. The prelude's own failure (out of memory, an
 * interrupt) is thrown after the context is disposed.
 */
export function prepareContext(runtime: QuickJSRuntime, preload: readonly string[] = []): Prepared {
  const ctx = runtime.newContext({ intrinsics: INTRINSICS });
  let calls: Calls | undefined;
  const bridge = (name: string, fn: (c: Calls, op: string, args: string) => string | undefined) => {
    const handle = ctx.newFunction(name, (opHandle, argsHandle) => {
      try {
        if (!calls) throw new Error('no execution in this context');
        const out = fn(calls, ctx.getString(opHandle), ctx.getString(argsHandle));
        return out === undefined ? ctx.undefined : ctx.newString(out);
      } catch (e) {
        if (e instanceof ModuleError) return { error: e.handle };
        if (e instanceof Stop) return { error: ctx.newError('stopped') };
        return { error: ctx.newError((e as Error).message) };
      }
    });
    ctx.setProp(ctx.global, name, handle);
    handle.dispose();
  };
  bridge('__host', (c, op, args) => c.host(op, args));
  const libHandle = ctx.newFunction('__lib', (nameHandle) => {
    const name = ctx.getString(nameHandle);
    const source = Object.hasOwn(LIBS, name) ? LIBS[name] : undefined;
    if (source === undefined) return { error: ctx.newError(`no library ${name}`) };
    return ctx.evalCode(source, `spark-${name}.js`, API_EVAL);
  });
  ctx.setProp(ctx.global, '__lib', libHandle);
  libHandle.dispose();
  bridge('__local', (c, op, args) => c.local(op, args));
  // The prelude, then the libraries asked for; either way `__preload` leaves the global object before any script.
  evalApi(ctx, PRELUDE, 'prelude');
  evalApi(
    ctx,
    `(function (g, f) { delete g.__preload; f(${JSON.stringify(preload)}); })(globalThis, globalThis.__preload)`,
    'preload',
  );
  return {
    runtime,
    ctx,
    bind: (c) => {
      calls = c;
    },
  };
}
