// Issue 20, finding 1 (regular expressions in JavaScript): a $regex evaluated by the server itself ($pull
// conditions, $match after a stage that is not pushed down) runs on the linear-time matcher, so V8's
// backtracking (`.*x` over 200,000 characters, `^(a|a)*$` doubling per character) no longer freezes the
// process; runaway work stops at the step budget with 400 QUERY_TOO_LARGE. /healthz is timed on its own thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthProbe } from '../hostile/probe.js';
import { createWorld, type World } from './world.js';

let w: World;
let probe: HealthProbe;
beforeAll(async () => {
  w = await createWorld();
  probe = new HealthProbe(await w.server.listen());
  await probe.settle();
});
afterAll(async () => {
  await probe?.stop();
  await w.close();
});

/** Sends one request and answers it with how long it took and the longest /healthz wait meanwhile. */
async function timed(path: string, body: unknown) {
  await probe.settle();
  const started = Date.now();
  const res = await w.call('POST', 'preview', `collection/${path}`, body);
  const ended = Date.now();
  await probe.settle(); // the probe in flight at the end has answered
  return { ...res, ms: ended - started, healthz: probe.worstBetween(started, ended) };
}

describe('$regex evaluated by the server', () => {
  it('aggregate $project then $match {$regex: ".*x"} over a 200,000-character string → 200 at once, /healthz within 1 s (was 40 s frozen)', {
    timeout: 120_000,
  }, async () => {
    const s = 'a'.repeat(200_000);
    await w.ok('POST', 'preview', 'collection/challengeInstance/insert', { _id: 'long', s });
    await w.ok('POST', 'preview', 'collection/challengeInstance/insert', { _id: 'longx', s: `${s}x` });
    const res = await timed('challengeInstance/aggregate', [
      { $project: { s: 1 } },
      { $match: { s: { $regex: '.*x' } } },
      { $project: { s: 0 } },
    ]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual([{ _id: 'longx' }]);
    expect(res.ms).toBeLessThan(5000);
    expect(res.healthz.failures).toBe(0);
    expect(res.healthz.maxMs).toBeLessThan(1000);
  });

  it('$pull {$regex: "^(a|a)*$"} on an array holding 28 a\'s and a b → 200 at once with the right elements pulled, /healthz within 1 s (was 12 s frozen)', {
    timeout: 120_000,
  }, async () => {
    const hostile = `${'a'.repeat(28)}b`;
    await w.ok('POST', 'preview', 'collection/challengeInstance/insert', {
      _id: 'pull',
      a: [hostile, 'aaaa', '', 'b', 'ab'],
    });
    const res = await timed('challengeInstance/update', {
      query: { _id: 'pull' },
      update: { $pull: { a: { $regex: '^(a|a)*$' } } },
    });
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(5000);
    expect(res.healthz.failures).toBe(0);
    expect(res.healthz.maxMs).toBeLessThan(1000);
    const [doc] = await w.ok<Array<{ a: string[] }>>('POST', 'preview', 'collection/challengeInstance/find', {
      query: { _id: 'pull' },
    });
    expect(doc!.a).toEqual([hostile, 'b', 'ab']);
  });

  it('a $match $regex whose work passes the step budget → 400 QUERY_TOO_LARGE, /healthz within 1 s', {
    timeout: 120_000,
  }, async () => {
    // About 200 live states per character over 500,000 characters: 100 million state visits, ten times the budget.
    await w.ok('POST', 'preview', 'collection/challengeInstance/insert', {
      _id: 'budget',
      s: 'a'.repeat(500_000),
    });
    const res = await timed('challengeInstance/aggregate', [
      { $match: { _id: 'budget' } },
      { $project: { s: 1 } },
      { $match: { s: { $regex: '(a|b|c|d){1,200}z' } } },
    ]);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'QUERY_TOO_LARGE' });
    expect((res.json as { message: string }).message).toContain('$regex');
    expect(res.healthz.failures).toBe(0);
    expect(res.healthz.maxMs).toBeLessThan(1000);
  });

  it('two $match stages whose $regex work together passes the budget (each alone within it) → 400 QUERY_TOO_LARGE', {
    timeout: 120_000,
  }, async () => {
    // About 1,600 state visits per character over 4,000 characters: 6.4 million per stage, 12.8 million in all.
    await w.ok('POST', 'preview', 'collection/challengeInstance/insert', {
      _id: 'shared',
      s: 'a'.repeat(4000),
    });
    const stage = (end: string) => ({ $match: { s: { $regex: `(a|b|c|d){1,200}${end}|a$` } } });
    const pipeline = [{ $match: { _id: 'shared' } }, { $project: { s: 1 } }, stage('z'), stage('y')];
    const one = await timed('challengeInstance/aggregate', pipeline.slice(0, 3));
    expect(one.status).toBe(200);
    expect(one.json).toHaveLength(1);
    const both = await timed('challengeInstance/aggregate', pipeline);
    expect(both.status).toBe(400);
    expect(both.json).toMatchObject({ code: 'QUERY_TOO_LARGE' });
  });
});
