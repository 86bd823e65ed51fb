// Callback URLs (issue 17): GET or POST {stage}/callback/{apiKey}/{credential}/{secret}[/{playerId}] runs
// callbacks/{credential} with the query and form fields in Spark.getData(), another body as REQUEST_BODY, and
// answers the scriptData as JSON or RESPONSE_RAW as text; on the store the run is given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAME_CONFIG, type RuntimeWorld, type Stage, startRuntimeWorld } from '../runtime/world.js';
import { script, setScripts } from './scripts.test-util.js';

let w: RuntimeWorld;
let alice: string;

beforeAll(async () => {
  w = await startRuntimeWorld(GAME_CONFIG, { PLAYBASE_SCRIPT_TIMER_CHECK_MS: '0' });
  alice = await w.player('alice');
}, 60_000);

afterAll(async () => {
  await w?.close();
});

const url = (
  o: { stage?: Stage; apiKey?: string; credential?: string; secret?: string; rest?: string } = {},
) =>
  `/${o.stage ?? 'preview'}/callback/${o.apiKey ?? w.apiKey}/${o.credential ?? w.credential}/${encodeURIComponent(
    o.secret ?? w.secret,
  )}${o.rest ?? ''}`;

const ECHO = script(
  'callbacks',
  'server',
  [
    'var p = Spark.getPlayer();',
    'Spark.setScriptData("data", Spark.getData());',
    'Spark.setScriptData("player", p === null ? null : p.getPlayerId());',
  ].join('\n'),
);

describe('callback URLs', () => {
  it('GET: query fields in getData (a repeated name: an array), the player of the URL, scriptData as JSON', async () => {
    await setScripts(w, [ECHO]);
    const res = await w.server.app.inject({
      method: 'GET',
      url: `${url({ rest: `/${alice}` })}?a=1&b=x&b=y`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ data: { a: '1', b: ['x', 'y'] }, player: alice });
    const none = await w.server.app.inject({ method: 'GET', url: url() });
    expect(none.json()).toEqual({ data: {}, player: null });
    // The original's URLs end with a / after the secret when they name no player.
    const slash = await w.server.app.inject({ method: 'GET', url: `${url()}/?a=2` });
    expect(slash.statusCode).toBe(200);
    expect(slash.json()).toEqual({ data: { a: '2' }, player: null });
  });

  it('POST a form: its fields with the query fields; the script writes the stage data it is given', async () => {
    await setScripts(w, [
      script(
        'callbacks',
        'server',
        [
          'var d = Spark.getData();',
          'Spark.runtimeCollection("payments").update({ _id: d.order }, { $set: { amount: Number(d.amount), via: d.via } }, true, false);',
          'Spark.setScriptData("ok", true);',
        ].join('\n'),
      ),
    ]);
    const res = await w.server.app.inject({
      method: 'POST',
      url: `${url()}?via=shop`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'order=o-17&amount=250',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect(await w.find('script.payments')).toEqual([{ _id: 'o-17', amount: 250, via: 'shop' }]);
  });

  it('POST multipart/form-data: its text fields in getData', async () => {
    await setScripts(w, [ECHO]);
    const boundary = 'XyZ123';
    const part = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const res = await w.server.app.inject({
      method: 'POST',
      url: url(),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `${part('name', 'Zoë')}${part('tag', 'a')}${part('tag', 'b')}--${boundary}--\r\n`,
    });
    expect(res.json().data).toEqual({ name: 'Zoë', tag: ['a', 'b'] });
  });

  it('another body is REQUEST_BODY; RESPONSE_RAW answers as text (a webhook check)', async () => {
    await setScripts(w, [
      script(
        'callbacks',
        'server',
        [
          'var d = Spark.getData();',
          'if (d["hub.mode"] === "subscribe") Spark.setScriptData("RESPONSE_RAW", d["hub.challenge"]);',
          'else Spark.setScriptData("RESPONSE_RAW", "got " + JSON.parse(d.REQUEST_BODY).entry.length);',
        ].join('\n'),
      ),
    ]);
    const challenge = await w.server.app.inject({
      method: 'GET',
      url: `${url()}?hub.mode=subscribe&hub.challenge=1158201444`,
    });
    expect(challenge.statusCode).toBe(200);
    expect(challenge.headers['content-type']).toMatch(/^text\/plain/);
    expect(challenge.body).toBe('1158201444');
    const posted = await w.server.app.inject({
      method: 'POST',
      url: url(),
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ entry: [1, 2, 3] }),
    });
    expect(posted.body).toBe('got 3');
  });

  it('a script error: setScriptError answers error; an uncaught one SCRIPT ERROR with its log entry id', async () => {
    await setScripts(w, [
      script(
        'callbacks',
        'server',
        'if (Spark.getData().fail) throw new Error("boom"); Spark.setScriptError("CODE", "bad");',
      ),
    ]);
    expect((await w.server.app.inject({ method: 'GET', url: url() })).json()).toEqual({
      error: { CODE: 'bad' },
    });
    const thrown = (await w.server.app.inject({ method: 'GET', url: `${url()}?fail=1` })).json();
    expect(thrown.error).toEqual({ SCRIPT: 'ERROR' });
    expect(thrown.scriptErrorMessage).toMatch(/boom/);
    const [entry] = await w.find('script.log', { query: { _id: { $oid: thrown.scriptErrorId } } });
    expect(entry.script).toBe('callbacks/server');
  });

  it('a wrong secret answers 403; an unknown credential, or one without a callbacks/ script, 404; bad input 400', async () => {
    await setScripts(w, [ECHO]);
    const wrong = await w.server.app.inject({ method: 'GET', url: url({ secret: 'not-the-secret' }) });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().code).toBe('RUNTIME_CREDENTIAL_INVALID');
    const unknown = await w.server.app.inject({ method: 'POST', url: url({ credential: 'nobody' }) });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('CALLBACK_NOT_FOUND');
    await setScripts(w, []);
    const noScript = await w.server.app.inject({ method: 'GET', url: url() });
    expect(noScript.statusCode).toBe(404);
    expect(noScript.json().code).toBe('CALLBACK_NOT_FOUND');
    const badKey = await w.server.app.inject({ method: 'GET', url: url({ apiKey: 'bad%20key' }) });
    expect(badKey.statusCode).toBe(400);
    const unknownGame = await w.server.app.inject({ method: 'GET', url: url({ apiKey: 'nogame' }) });
    expect(unknownGame.statusCode).toBe(404);
  });

  it('Live runs the published callback script, and nothing before a publish', async () => {
    await setScripts(w, [
      script('callbacks', 'server', 'Spark.setScriptData("stage", Spark.getConfig().getStage());'),
    ]);
    expect((await w.server.app.inject({ method: 'GET', url: url({ stage: 'live' }) })).statusCode).toBe(404);
    await w.publish();
    w.server.ctx.gameChanges?.publish([w.apiKey]);
    const live = await w.server.app.inject({ method: 'GET', url: url({ stage: 'live' }) });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ stage: 'live' });
  });
});

describe('callback URLs and the runtime limit', () => {
  let limited: RuntimeWorld;
  beforeAll(async () => {
    limited = await startRuntimeWorld(GAME_CONFIG, {
      PLAYBASE_LIMIT_RUNTIME_PER_SECOND: '3',
      PLAYBASE_SCRIPT_TIMER_CHECK_MS: '0',
    });
    await setScripts(limited, [script('callbacks', 'server', 'Spark.setScriptData("ok", 1);')]);
  }, 60_000);
  afterAll(async () => limited?.close());

  it('count against the game’s runtime rate: past it 429 RATE_LIMITED', async () => {
    const at = `/preview/callback/${limited.apiKey}/server/${encodeURIComponent(limited.secret)}`;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => limited.server.app.inject({ method: 'GET', url: at })),
    );
    const refused = answers.filter((r) => r.statusCode === 429);
    // 3 a second: even spread over two windows, at most 6 of 12 pass.
    expect(refused.length).toBeGreaterThanOrEqual(6);
    expect(refused[0]?.json().code).toBe('RATE_LIMITED');
    expect(answers.filter((r) => r.statusCode === 200).length).toBeGreaterThan(0);
  });
});
