import * as v from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core';
import { PRELUDE } from './src/script/prelude.ts';
const mod = await newQuickJSWASMModuleFromVariant(v.default as never);
const t = { rt: 0, fn: 0, prelude: 0, script: 0, dispose: 0 };
const N = 300;
for (let i = 0; i < N + 50; i++) {
  const a = performance.now();
  const rt = mod.newRuntime(); rt.setMemoryLimit(64 << 20); rt.setMaxStackSize(200 * 1024);
  rt.setInterruptHandler(() => false);
  const ctx = rt.newContext();
  const b = performance.now();
  for (const name of ['__host', '__local']) {
    const h = ctx.newFunction(name, (x) => { const op = ctx.getString(x); if (op === 'data' || op === 'context') return ctx.newString('{}'); return ctx.undefined; });
    ctx.setProp(ctx.global, name, h); h.dispose();
  }
  const c = performance.now();
  const p = ctx.evalCode(PRELUDE, 'p.js'); (p.value ?? p.error)!.dispose();
  const d = performance.now();
  const r = ctx.evalCode('Spark.setScriptData("x", 1)', 'x.js'); (r.value ?? r.error)!.dispose();
  const e = performance.now();
  ctx.dispose(); rt.dispose();
  const f = performance.now();
  if (i >= 50) { t.rt += b - a; t.fn += c - b; t.prelude += d - c; t.script += e - d; t.dispose += f - e; }
}
for (const k of Object.keys(t)) console.log(k, ((t as any)[k] / N).toFixed(3));
