// A compute thread: runs the tasks it is sent, one message at a time but many tasks at once (a task waiting
// for its statement lets the next one start), and sends each statement to the event loop's pool. A room's
// thread entry (nosql/compute-worker.ts) calls serveTasks with its table of tasks.
import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../thread-priority.js';
import { inline, runTask, type TaskTable } from './compute.js';
import { receiveError, sendError } from './errors.js';
import type { DbRequest, FromWorker, ToWorker } from './protocol.js';
import { RemoteDb } from './remote-db.js';

export function serveTasks(tasks: TaskTable): void {
  lowerThreadPriority();
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs on a compute thread');
  const here = inline(tasks);
  const statements = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let nextStatement = 1;

  const send = (message: FromWorker) => port.postMessage(message);

  function statement(task: number, request: DbRequest): Promise<unknown> {
    const id = nextStatement++;
    return new Promise((resolve, reject) => {
      statements.set(id, { resolve, reject });
      send({ type: 'db', id, task, request });
    });
  }

  async function run(m: Extract<ToWorker, { type: 'task' }>): Promise<void> {
    const db = m.db ? new RemoteDb((request) => statement(m.id, request)).asPool() : undefined;
    try {
      const output = await runTask(tasks, m.name, m.input, db, here);
      send({ type: 'done', id: m.id, ok: true, output });
    } catch (e) {
      send({ type: 'done', id: m.id, ok: false, error: sendError(e) });
    }
  }

  port.on('message', (m: ToWorker) => {
    if (m.type === 'task') {
      void run(m);
      return;
    }
    const waiting = statements.get(m.id);
    if (!waiting) return;
    statements.delete(m.id);
    if (m.ok) waiting.resolve(m.result);
    else waiting.reject(receiveError(m.error));
  });
}
