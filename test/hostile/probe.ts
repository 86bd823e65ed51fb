// A /healthz probe on its own thread: it measures how long the server keeps a cheap request waiting, whatever
// the calling thread (a test or a benchmark that builds large bodies) is doing meanwhile.
import { Worker } from 'node:worker_threads';

export interface ProbeSample {
  /** When the request was sent (epoch ms). */
  at: number;
  /** Send to end of answer, ms; a request that got no answer counts the time until it gave up. */
  ms: number;
  status: number;
}

// Plain JavaScript, evaluated in the worker: one request at a time, one every intervalMs (or at once when the
// previous one took longer), each on a fresh connection so that a slow answer never queues behind another.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, intervalMs, giveUpMs } = workerData;
let stopped = false;
parentPort.on('message', (m) => { if (m === 'stop') stopped = true; });
function once() {
  return new Promise((resolve) => {
    const at = Date.now();
    const started = process.hrtime.bigint();
    const done = (status) => resolve({ at, ms: Number(process.hrtime.bigint() - started) / 1e6, status });
    const req = http.get(url, { agent: false, timeout: giveUpMs }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode));
      res.on('error', () => done(0));
    });
    req.on('timeout', () => { req.destroy(); });
    req.on('error', () => done(0));
  });
}
(async () => {
  while (!stopped) {
    const sample = await once();
    parentPort.postMessage(sample);
    const wait = intervalMs - sample.ms;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  parentPort.postMessage('stopped');
})();
`;

export class HealthProbe {
  private readonly samples: ProbeSample[] = [];
  private readonly worker: Worker;
  private readonly stopped: Promise<void>;

  constructor(baseUrl: string, intervalMs = 50, giveUpMs = 60_000) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { url: `${baseUrl}/healthz`, intervalMs, giveUpMs },
    });
    this.stopped = new Promise((resolve) => {
      this.worker.on('message', (m: ProbeSample | 'stopped') => {
        if (m === 'stopped') resolve();
        else this.samples.push(m);
      });
      this.worker.on('exit', () => resolve());
    });
  }

  /** Waits until the probe has answered at least `count` more times (so a window surely holds samples). */
  async settle(count = 2): Promise<void> {
    const target = this.samples.length + count;
    while (this.samples.length < target) await new Promise((r) => setTimeout(r, 10));
  }

  /** The longest wait among probes in flight at some time between `since` and `until` (epoch ms). */
  worstBetween(since: number, until: number): { maxMs: number; probes: number; failures: number } {
    const window = this.samples.filter((s) => s.at + s.ms >= since && s.at <= until);
    let maxMs = 0;
    let failures = 0;
    for (const s of window) {
      if (s.ms > maxMs) maxMs = s.ms;
      if (s.status !== 200) failures++;
    }
    return { maxMs: Math.round(maxMs * 10) / 10, probes: window.length, failures };
  }

  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    await Promise.race([this.stopped, new Promise((r) => setTimeout(r, 65_000))]);
    await this.worker.terminate();
  }
}
