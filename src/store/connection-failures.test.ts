import { describe, expect, it } from 'vitest';
import { isConnectionFailure } from './connection-failures.js';
import { reconnectDelayMs } from './listen-postgres.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isConnectionFailure', () => {
  it('admin shutdown, crash shutdown, cannot connect now, class 08, too many connections → a connection failure', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '08P01', '53300'])
      expect([code, isConnectionFailure(withCode(code))]).toEqual([code, true]);
  });

  it('socket errors, driver messages and a pool checkout timeout → a connection failure', () => {
    for (const e of [
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('timeout exceeded when trying to connect'),
      new AggregateError([withCode('ECONNREFUSED')], ''),
    ])
      expect([e.message, isConnectionFailure(e)]).toEqual([e.message, true]);
  });

  it('statement errors (timeout, unique violation, syntax, data) and non-errors → not a connection failure', () => {
    for (const e of [withCode('57014'), withCode('23505'), withCode('42601'), withCode('22P02'), 'x', null])
      expect(isConnectionFailure(e)).toBe(false);
  });
});

describe('reconnectDelayMs', () => {
  it('doubles from 0.5 s per attempt, stays within the upper half of its ceiling, and is capped at 30 s', () => {
    expect([0, 1, 2, 3].map((a) => reconnectDelayMs(a, () => 1))).toEqual([500, 1000, 2000, 4000]);
    expect([0, 1, 2, 3].map((a) => reconnectDelayMs(a, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect(reconnectDelayMs(20, () => 1)).toBe(30_000);
    expect(reconnectDelayMs(1000, () => 0)).toBe(15_000);
  });

  it('two processes with different random draws → different waits (jitter spreads reconnections)', () => {
    expect(reconnectDelayMs(4, () => 0.1)).not.toBe(reconnectDelayMs(4, () => 0.9));
  });
});
