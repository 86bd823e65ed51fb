// A compute thread: runs the tasks it is sent, one message at a time but many tasks at once (a task waiting
// for its statement lets the next one start), and sends each statement to the event loop's pool.
import { parentPort } from 'node:worker_threads';
import { inline } from './compute.js';
import { receiveError, sendError } from './errors.js';
import type { DbRequest, FromWorker, ToWorker } from './protocol.js';
import { RemoteDb } from './remote-db.js';
import { runTask } from './tasks.js';
import { lowerThreadPriority } from './thread-priority.js';

lowerThreadPriority();
const port = parentPort!;
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
    const output = await runTask(m.name as never, m.input as never, db, inline);
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
