// A sandbox thread's entry: the thread drops to its low priority before anything heavy loads, then runs
// engine-worker.ts. A thread ended past its budget is replaced by a new one, whose start (loading QuickJS and the
// API's modules, instantiating the WebAssembly) ran at the event loop's priority when the priority was lowered by
// engine-worker.ts itself (its static imports load first): with several threads replaced at once on 2 cores, the
// event loop waited for them.
import { lowerThreadPriority, SANDBOX_THREAD_NICENESS } from '../thread-priority.js';

lowerThreadPriority(SANDBOX_THREAD_NICENESS);
await import('./engine-worker.js');
