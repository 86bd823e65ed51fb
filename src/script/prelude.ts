// The Spark API as the sandbox sees it: ES5 source evaluated in each execution's fresh context before the script.
// It talks to the outside through two functions only, taken off the global object before any script runs:
// `__local(op, json)` (answered by the sandbox's thread: scriptData, errors, log, exit, modules) and
// `__host(op, json)` (answered by the event loop: collections, players, cache, locks). Both take and answer
// JSON text, so no object of the host ever enters the sandbox.

import { COLLECTIONS_LIB, COLLECTIONS_MORE_LIB, CURSOR_LIB } from './prelude-collections.js';
import { DATA_LIB } from './prelude-data.js';
import { DIGEST_LIB } from './prelude-digest.js';
import { HTTP_LIB } from './prelude-http.js';
import { LEADERBOARDS_LIB } from './prelude-leaderboards.js';
import { REQUESTS_LIB } from './prelude-requests.js';
import { LOG_LIB, SPARK_LIB } from './prelude-spark.js';
import { SCHEDULER_LIB } from './scheduler-lib.js';

export const PRELUDE = `(function (g) {
  'use strict';
  var H = g.__host, L = g.__local, LIB = g.__lib;
  delete g.__host; delete g.__local; delete g.__lib;
  // Binary buffers are left out (ES5 had none, and their memory is not counted against the script's cap).
  var binary = ['ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Atomics', 'Int8Array', 'Uint8Array',
    'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array',
    'BigInt64Array', 'BigUint64Array', 'WeakRef', 'FinalizationRegistry'];
  for (var b = 0; b < binary.length; b++) delete g[binary[b]];
  // Math.random: xoshiro128** seeded by the host at its first call in an execution (a thread puts its memory back
  // to a snapshot after each execution, and QuickJS's own generator would start from the same state every time).
  var imul = Math.imul, rs = null;
  function rotl(x, k) { return (x << k) | (x >>> (32 - k)); }
  function next32() {
    var r = imul(rotl(imul(rs[1], 5), 7), 9), t = rs[1] << 9;
    rs[2] ^= rs[0]; rs[3] ^= rs[1]; rs[1] ^= rs[2]; rs[0] ^= rs[3]; rs[2] ^= t; rs[3] = rotl(rs[3], 11);
    return r >>> 0;
  }
  Object.defineProperty(Math, 'random', {
    value: function random() {
      if (rs === null) { rs = local('seed'); if (!(rs[0] | rs[1] | rs[2] | rs[3])) rs[0] = 1; }
      return ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992;
    },
    writable: true, configurable: true, enumerable: false
  });
  function enc(v) { return v === undefined ? 'null' : JSON.stringify(v); }
  function dec(t) { return t === undefined || t === null || t === '' ? undefined : JSON.parse(t); }
  function host(op, args) { return dec(H(op, enc(args))); }
  function local(op, args) { return dec(L(op, enc(args))); }
  function copy(v) { return v === undefined ? undefined : JSON.parse(JSON.stringify(v)); }
  // Everything in this source is compiled for every execution: only what most scripts call is here. The rest of
  // the API is in libraries (LIBS) compiled in this context at their first use, and so per execution too.
  var libs = {}, DATA, CTX;
  function lib(name) { return libs[name] || (libs[name] = LIB(name)(I)); }
  function data() { return DATA === undefined ? (DATA = local('data')) : DATA; }
  function context() { return CTX === undefined ? (CTX = local('context')) : CTX; }
  function loadPlayer(id) { return lib('player').load(id); }
  function alias(obj, names) {
    for (var i = 0; i < names.length; i++) {
      (function (n) {
        var getter = obj['get' + n.charAt(0).toUpperCase() + n.slice(1)];
        Object.defineProperty(obj, n, { get: function () { return getter.call(obj); }, enumerable: false });
      })(names[i]);
    }
    return obj;
  }
  var I = { host: host, local: local, copy: copy, alias: alias, lib: lib, context: context, loadPlayer: loadPlayer };
  // A method of a library: the library is compiled at the method's first call.
  var apply = Reflect.apply;
  function later(name, member) { return function () { return apply(lib(name)[member], Spark, arguments); }; }
  var current;
  var Spark = {
    getData: function () { return copy(data()); },
    setScriptData: function (n, v) { local('scriptData', { op: 'set', name: String(n), value: v === undefined ? null : v }); },
    getScriptData: function (n) { return local('scriptData', { op: 'get', name: String(n) }); },
    removeScriptData: later('spark', 'removeScriptData'),
    removeAllScriptData: later('spark', 'removeAllScriptData'),
    setScriptError: later('spark', 'setScriptError'),
    getScriptError: later('spark', 'getScriptError'),
    removeScriptError: later('spark', 'removeScriptError'),
    removeAllScriptErrors: later('spark', 'removeAllScriptErrors'),
    hasScriptErrors: later('spark', 'hasScriptErrors'),
    exit: function () { L('exit', 'null'); },
    getRemainingMilliseconds: later('spark', 'getRemainingMilliseconds'),
    getPlayer: function () {
      if (current === undefined) current = context().playerId ? loadPlayer(context().playerId) : null;
      return current;
    },
    loadPlayer: loadPlayer,
    getLog: later('log', 'getLog'),
    runtimeCollection: function (n) { return lib('collections').collection('runtime', n, true); },
    metaCollection: later('spark', 'metaCollection'),
    systemCollection: later('spark', 'systemCollection'),
    getCache: later('spark', 'getCache'),
    getConfig: later('spark', 'getConfig'),
    getScheduler: function () { return lib('scheduler'); },
    lockKey: later('spark', 'lockKey'),
    unlockKey: later('spark', 'unlockKey'),
    unlockKeyFully: later('spark', 'unlockKeyFully'),
    getGameDataService: later('data', 'service'),
    getLeaderboards: later('leaderboards', 'leaderboards'),
    getDigester: later('digest', 'digester'),
    sendRequest: later('requests', 'sendRequest'),
    sendRequestAs: later('requests', 'sendRequestAs'),
    logEvent: later('requests', 'logEvent'),
    getHttp: later('http', 'http'),
    loadPlayerByExternalId: later('spark', 'loadPlayerByExternalId')
  };
  alias(Spark, ['data', 'player', 'log', 'config', 'cache', 'remainingMilliseconds', 'gameDataService', 'leaderboards', 'digester']);
  Object.freeze(Spark);
  function load(name, once) { L('require', enc({ name: String(name), once: once })); }
  g.Spark = Spark;
  Object.defineProperty(g, 'SparkRequests', { get: function () { return lib('requests').classes; } });
  // Libraries compiled ahead (a thread's snapshot holds them): taken off the global object by the host at once.
  g.__preload = function (names) { for (var i = 0; i < names.length; i++) lib(names[i]); };
  g.require = function (name) { load(name, false); };
  g.requireOnce = function (name) { load(name, true); };
})(globalThis);
`;

/** Parts of the API compiled at their first use: each a function of the prelude's internals (`I`). */
export const LIBS: Record<string, string> = {
  spark: SPARK_LIB,
  log: LOG_LIB,
  collections: COLLECTIONS_LIB,
  cursor: CURSOR_LIB,
  collectionsMore: COLLECTIONS_MORE_LIB,
  scheduler: SCHEDULER_LIB,
  data: DATA_LIB,
  leaderboards: LEADERBOARDS_LIB,
  digest: DIGEST_LIB,
  requests: REQUESTS_LIB,
  http: HTTP_LIB,
  player: `(function (I) {
  'use strict';
  var host = I.host, local = I.local, copy = I.copy, alias = I.alias;
  function Player(doc) { this._d = doc; this._id = doc.playerId; }
  Player.prototype.getPlayerId = function () { return this._id; };
  Player.prototype.getDisplayName = function () { return this._d.displayName == null ? null : this._d.displayName; };
  Player.prototype.getUserName = function () { return this._d.userName == null ? null : this._d.userName; };
  Player.prototype.getExternalIds = function () { return copy(this._d.externalIds || {}); };
  Player.prototype.getCreationDate = function () { return this._d.created; };
  Player.prototype._set = function (field, name, value) {
    host('player', { playerId: this._id, op: 'set', field: field, name: String(name), value: value });
    var m = this._d[field] || (this._d[field] = {});
    if (value === undefined) delete m[name]; else m[name] = copy(value);
  };
  Player.prototype.setScriptData = function (n, v) { this._set('scriptData', n, v === undefined ? null : v); };
  Player.prototype.getScriptData = function (n) { var m = this._d.scriptData || {}; return m[n] === undefined ? null : copy(m[n]); };
  Player.prototype.removeScriptData = function (n) { this._set('scriptData', n, undefined); };
  Player.prototype.setPrivateData = function (n, v) { this._set('privateData', n, v === undefined ? null : v); };
  Player.prototype.getPrivateData = function (n) { var m = this._d.privateData || {}; return m[n] === undefined ? null : copy(m[n]); };
  Player.prototype.removePrivateData = function (n) { this._set('privateData', n, undefined); };
  Player.prototype._money = function (op, n, qty) {
    var r = host('player', { playerId: this._id, op: op, currency: n, qty: qty });
    this._d['currency' + n] = r.balance;
    return r.ok;
  };
  Player.prototype.getBalance = function (n) { return this._d['currency' + n] || 0; };
  Player.prototype.persist = function () { host('player', { playerId: this._id, op: 'persist' }); };
  Player.prototype.validatePassword = function (pw) { return host('player', { playerId: this._id, op: 'validatePassword', password: pw }); };
  Player.prototype.setPassword = function (pw) { host('player', { playerId: this._id, op: 'setPassword', password: pw }); };
  for (var c = 1; c <= 6; c++) {
    (function (n) {
      Player.prototype['credit' + n] = function (qty) { this._money('credit', n, qty); };
      Player.prototype['debit' + n] = function (qty) { return this._money('debit', n, qty); };
      Player.prototype['getBalance' + n] = function () { return this.getBalance(n); };
    })(c);
  }
  function load(id) {
    if (id === null || id === undefined) return null;
    var doc = host('player', { playerId: String(id), op: 'load' });
    return doc ? alias(new Player(doc), ['playerId', 'displayName', 'userName']) : null;
  }
  return { load: load };
})`,
};
