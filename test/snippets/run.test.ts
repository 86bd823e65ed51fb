// Running an admin snippet on the nosql server: POST {stageBaseUrl}/restv2/game/{apiKey}/manage/snippets/{sc}/run.
// Its Cloud Code runs with no player and answers its scriptData; errors as scripts answer them, writes rolled back
// on failure; JWT only, nosql.snippets 2 and the snippet's groups; every run audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { type Json, type PlayersWorld, startPlayersWorld } from '../players/world.js';

describe(`snippet run route (${storeKind})`, () => {
  let w: PlayersWorld;
  let alice: string;
  const snippet = (shortCode: string, script: string, groups: string[] = []) =>
    w.ok('POST', `/restv2/game/${w.apiKey}/manage/snippets`, {
      shortCode,
      name: shortCode,
      script,
      template: '<p>{{name}}</p>',
      groups,
    });
  const run = (
    shortCode: string,
    body: unknown,
    options: { as?: Record<string, string>; stage?: 'live' } = {},
  ) => {
    const [code, query] = shortCode.split('?');
    return w.api('POST', `manage/snippets/${code}/run${query ? `?${query}` : ''}`, { body, ...options });
  };

  beforeAll(async () => {
    w = await startPlayersWorld();
    alice = await w.player('alice');
    await snippet(
      'VIEW',
      `var p = Spark.loadPlayer(Spark.getData().scriptData.playerId);
       Spark.getLog().info("viewed " + Spark.data.scriptData.playerId);
       Spark.setScriptData("name", p ? p.getDisplayName() : null);
       Spark.setScriptData("sum", Spark.getData().scriptData.a + Spark.getData().scriptData.b);
       Spark.setScriptData("player", Spark.getPlayer() === null);`,
    );
    await snippet(
      'BREAK',
      `Spark.runtimeCollection("notes").insert({ n: 1 });
       throw new Error("boom");`,
    );
    await snippet('REFUSE', 'Spark.setScriptError("amount", "TOO_HIGH"); Spark.setScriptData("x", 1);');
    await snippet('GATED', 'Spark.setScriptData("ok", true);', ['gameAdmin']);
  }, 60_000);
  afterAll(async () => w?.close());

  it('runs the script with no player: the input as Spark.getData().scriptData, the scriptData as the answer', async () => {
    const res = await run('VIEW', { scriptData: { playerId: alice, a: 2, b: 3 } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ scriptData: { name: 'Dr alice', sum: 5, player: true } });
    const [line] = await w.find('script.log', { query: { script: 'snippets/VIEW' } });
    expect(line).toMatchObject({ level: 'INFO', log: `viewed ${alice}`, playerId: null });
  });

  it('Preview with ?trace=1 adds the trace: the log line and the store calls', async () => {
    const res = await run('VIEW?trace=1', { scriptData: { playerId: alice, a: 1, b: 1 } });
    const { trace } = res.json();
    expect(trace).toHaveLength(1);
    expect(trace[0]).toMatchObject({ script: 'snippets/VIEW', outcome: 'ok' });
    expect(trace[0].logs.map((l: Json) => l.log)).toEqual([`viewed ${alice}`]);
    expect(trace[0].calls.length).toBeGreaterThan(0);
    // Live never traces.
    const live = await run(
      'VIEW?trace=1',
      { scriptData: { playerId: alice, a: 1, b: 1 } },
      { stage: 'live' },
    );
    expect(live.statusCode).toBe(200);
    expect(live.json().trace).toBeUndefined();
  });

  it('a script error: SCRIPT ERROR with the id of its script.log entry, its writes rolled back', async () => {
    const res = await run('BREAK', {});
    expect(res.statusCode).toBe(200);
    const answer = res.json();
    expect(answer).toMatchObject({
      scriptData: {},
      error: { SCRIPT: 'ERROR' },
      scriptErrorMessage: 'Error: boom',
      scriptErrorAt: 'snippets/BREAK.js:2',
    });
    const [entry] = await w.find('script.log', { query: { level: 'ERROR', script: 'snippets/BREAK' } });
    expect(entry._id.$oid).toBe(answer.scriptErrorId);
    expect(entry.stack).toContain('snippets/BREAK');
    expect(await w.find('notes', {}).catch(() => [])).toEqual([]);
    // Live does not tell the message, only the entry.
    const live = (await run('BREAK', {}, { stage: 'live' })).json();
    expect(live.error).toEqual({ SCRIPT: 'ERROR' });
    expect(live.scriptErrorMessage).toBeUndefined();
  });

  it("a script's setScriptError is the answer's error, beside its scriptData", async () => {
    expect((await run('REFUSE', {})).json()).toEqual({ scriptData: { x: 1 }, error: { amount: 'TOO_HIGH' } });
  });

  it('every run is audited: who, which snippet, the stage, the input and the outcome', async () => {
    await run('VIEW', { scriptData: { playerId: alice, a: 4, b: 5 } });
    const entries = await w.audit('manage.snippet.run');
    expect(entries[0]).toMatchObject({
      action: 'manage.snippet.run',
      target: 'VIEW',
      credential: 'jwt',
      after: { stage: 'preview', input: { playerId: alice, a: 4, b: 5 }, outcome: 'ok' },
    });
    const failed = entries.find((e: Json) => e.target === 'BREAK');
    expect(failed.after).toMatchObject({ outcome: 'error' });
    expect(typeof failed.after.scriptErrorId).toBe('string');
  });

  it('bad input → 400; an unknown snippet → 404', async () => {
    for (const body of [{ scriptData: 'x' }, { scriptData: [1] }, { other: 1 }]) {
      const res = await run('VIEW', body);
      expect([JSON.stringify(body), res.statusCode]).toEqual([JSON.stringify(body), 400]);
      expect(res.json().code).toBeTypeOf('string');
    }
    const notJson = await w.server.app.inject({
      method: 'POST',
      url: `/preview/restv2/game/${w.apiKey}/manage/snippets/VIEW/run`,
      headers: { ...w.jwt.owner, 'content-type': 'application/json' },
      payload: '{nope',
    });
    expect(notJson.statusCode).toBe(400);
    const missing = await run('NOPE', {});
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'MANAGE_ITEM_NOT_FOUND']);
  });

  it('permissions: expired JWT → 401, no JWT → 401, no nosql.snippets → 403, outside its groups → 403', async () => {
    const expired = await run('VIEW', {}, { as: w.jwt.expired });
    expect([expired.statusCode, expired.json().code]).toEqual([401, 'TOKEN_EXPIRED']);
    const anonymous = await w.server.app.inject({
      method: 'POST',
      url: `/preview/restv2/game/${w.apiKey}/manage/snippets/VIEW/run`,
      payload: {},
    });
    expect(anonymous.statusCode).toBe(401);
    const reader = await run('VIEW', {}, { as: w.jwt.reader });
    expect([reader.statusCode, reader.json().code]).toEqual([403, 'PERMISSION_DENIED']);
    const gated = await run('GATED', {});
    expect([gated.statusCode, gated.json().code]).toEqual([403, 'SNIPPET_GROUP_DENIED']);
    // A member of one of its groups runs it.
    const groups: Json[] = await w.ok('GET', `/restv2/auth/game/${w.apiKey}/groups`);
    const mine = groups.map((g) => g.name).find((n: string) => n.startsWith('admin'));
    await w.ok('PUT', `/restv2/game/${w.apiKey}/manage/snippets/GATED`, {
      name: 'GATED',
      script: 'Spark.setScriptData("ok", true);',
      template: '',
      groups: ['gameAdmin', mine],
    });
    expect((await run('GATED', {})).json()).toEqual({ scriptData: { ok: true } });
    // Nothing was audited for the refused calls.
    const audited = (await w.audit('manage.snippet.run')).filter((e: Json) => e.target === 'GATED');
    expect(audited).toHaveLength(1);
  });
});
