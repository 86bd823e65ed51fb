// The compute threads themselves: answers and errors come back as they would from the same call on the event
// loop, and a thread that ends takes only its own tasks with it.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { receiveError, sendError } from '../../src/compute/errors.js';
import { ComputePool } from '../../src/compute/pool.js';
import { isPlaybaseError, PlaybaseError } from '../../src/errors.js';
import { DOCUMENT_WORKER } from '../../src/nosql/compute-tasks.js';
import { isConnectionFailure } from '../../src/store/connection-failures.js';
import { BULK_THREAD_NICENESS } from '../../src/thread-priority.js';

const pool = new ComputePool(1, DOCUMENT_WORKER);
afterAll(() => pool.close());

describe('compute pool', () => {
  it('render on a thread → the same texts as on the event loop', async () => {
    const texts = ['{"_id":"a","n":{"$numberLong":"5"}}', '{"_id":"b","d":{"$date":{"$numberLong":"0"}}}'];
    const out = await pool.run('render', { texts, fields: { n: 1 } }, undefined);
    expect(out).toEqual(['{"_id":"a","n":{"$numberLong":"5"}}', '{"_id":"b"}']);
  });

  it('a catalogue error raised on a thread → the same PlaybaseError (status, code, message)', async () => {
    const failed = pool.run('render', { texts: ['{}'], fields: 'not a projection' }, undefined);
    const error = await failed.catch((e: unknown) => e);
    expect(isPlaybaseError(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, code: 'QUERY_BAD_PROJECTION' });
  });

  it('a task that needs a database, sent without one → rejected, the thread keeps serving', async () => {
    await expect(pool.run('count', {} as never, undefined)).rejects.toThrow(/needs a database/);
    await expect(pool.run('nonesuch', {}, undefined)).rejects.toThrow(/no compute task/);
    await expect(pool.run('render', { texts: [], fields: () => 1 }, undefined)).rejects.toThrow(
      /could not be cloned/,
    );
    expect(await pool.run('render', { texts: ['{"a":1}'], fields: undefined }, undefined)).toEqual([
      '{"a":1}',
    ]);
  });

  it('a thread that ends mid-task → that task fails, the next one runs on a new thread', async () => {
    const one = new ComputePool(1, DOCUMENT_WORKER);
    const texts = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ _id: i, s: 'x'.repeat(500) }));
    const running = one.run('render', { texts, fields: undefined }, undefined);
    const threads = (one as unknown as { threads: Array<{ worker: Worker }> }).threads;
    await threads[0]!.worker.terminate();
    await expect(running).rejects.toThrow(/compute thread exited/);
    expect(await one.run('render', { texts: ['{"a":1}'], fields: undefined }, undefined)).toEqual([
      '{"a":1}',
    ]);
    await one.close();
  });
});

/** Threads of this process at a nice value (Linux keeps one per thread, in field 19 of its stat line). */
function threadsAtNice(nice: number): number {
  return readdirSync('/proc/self/task').filter((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) === nice;
  }).length;
}

describe('thread priority', () => {
  it.runIf(process.platform === 'linux')(
    'a compute thread runs at nice 10, the event loop stays at its own',
    async () => {
      const mine = os.getPriority();
      const before = threadsAtNice(BULK_THREAD_NICENESS);
      const one = new ComputePool(1, DOCUMENT_WORKER);
      await one.run('render', { texts: ['{}'], fields: undefined }, undefined);
      expect(threadsAtNice(BULK_THREAD_NICENESS)).toBe(before + 1);
      expect(os.getPriority()).toBe(mine);
      await one.close();
    },
  );
});

describe('errors across threads', () => {
  it('PlaybaseError → status, code, message, details and headers kept', () => {
    const sent = new PlaybaseError(503, 'NOT_READY', 'down', [{ message: 'x' }], { 'Retry-After': '2' });
    const back = receiveError(structuredClone(sendError(sent)));
    expect(back).toBeInstanceOf(PlaybaseError);
    expect(back).toMatchObject({
      status: 503,
      code: 'NOT_READY',
      message: 'down',
      headers: { 'Retry-After': '2' },
    });
  });

  it('a PostgreSQL error → SQLSTATE, constraint and severity kept (what translateDbError reads)', () => {
    const pg = Object.assign(new Error('duplicate key'), {
      code: '23505',
      constraint: 'nx_1',
      severity: 'ERROR',
    });
    const back = receiveError(structuredClone(sendError(pg)));
    expect(back).toMatchObject({
      message: 'duplicate key',
      code: '23505',
      constraint: 'nx_1',
      severity: 'ERROR',
    });
  });

  it('a lost connection (driver message, or an AggregateError of refusals) → still a connection failure', () => {
    const driver = new Error('Connection terminated unexpectedly');
    expect(isConnectionFailure(receiveError(structuredClone(sendError(driver))))).toBe(true);
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const aggregate = new AggregateError([refused], 'all addresses refused');
    expect(isConnectionFailure(receiveError(structuredClone(sendError(aggregate))))).toBe(true);
  });

  it('any other error → a plain Error with its message (the error handler answers 500)', () => {
    const back = receiveError(structuredClone(sendError(new TypeError('boom'))));
    expect(back.message).toBe('boom');
    expect(back.name).toBe('TypeError');
    expect(isPlaybaseError(back)).toBe(false);
  });
});
