// The Spark API as the sandbox sees it: ES5 source evaluated in each execution's fresh context before the script.
// It talks to the outside through two functions only, taken off the global object before any script runs:
// `__local(op, json)` (answered by the sandbox's thread: scriptData, errors, log, exit, modules) and
// `__host(op, json)` (answered by the event loop: collections, players, cache, locks). Both take and answer
// JSON text, so no object of the host ever enters the sandbox.
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
  function enc(v) { return v === undefined ? 'null' : JSON.stringify(v); }
  function dec(t) { return t === undefined || t === null || t === '' ? undefined : JSON.parse(t); }
  function host(op, args) { return dec(H(op, enc(args))); }
  function local(op, args) { return dec(L(op, enc(args))); }
  // Parts of the API a script may not use are compiled at their first use (compiling costs more than running).
  var libs = {};
  var I = { host: host, local: local, copy: copy, alias: function (o, n) { return alias(o, n); } };
  function lib(name) { return libs[name] || (libs[name] = LIB(name)(I)); }
  function loadPlayer(id) { return lib('player').load(id); }
  var DATA = local('data');
  var CTX = local('context');
  function copy(v) { return v === undefined ? undefined : JSON.parse(JSON.stringify(v)); }
  function alias(obj, names) {
    for (var i = 0; i < names.length; i++) {
      (function (n) {
        var getter = obj['get' + n.charAt(0).toUpperCase() + n.slice(1)];
        Object.defineProperty(obj, n, { get: function () { return getter.call(obj); }, enumerable: false });
      })(names[i]);
    }
    return obj;
  }



  var current;
  var log = { level: 'DEBUG' };
  var LEVELS = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3 };
  function logAt(level) { return function (msg) { if (LEVELS[level] >= LEVELS[log.level]) local('log', { level: level, log: msg }); }; }
  var SparkLog = {
    debug: logAt('DEBUG'), info: logAt('INFO'), warn: logAt('WARN'), error: logAt('ERROR'),
    getLevel: function () { return log.level; },
    setLevel: function (l) { if (LEVELS.hasOwnProperty(l)) log.level = l; }
  };
  var cache = {
    put: function (k, v) { host('cache', { op: 'put', key: String(k), value: v }); },
    get: function (k) { var r = host('cache', { op: 'get', key: String(k) }); return r === undefined ? null : r; },
    remove: function (k) { host('cache', { op: 'remove', key: String(k) }); },
    removeAll: function (pattern) { host('cache', { op: 'removeAll', pattern: pattern === undefined ? null : String(pattern) }); }
  };
  var config = alias({
    getStage: function () { return CTX.stage; },
    getApiKey: function () { return CTX.apiKey; }
  }, ['stage', 'apiKey']);
  var Spark = {
    getData: function () { return copy(DATA); },
    setScriptData: function (n, v) { local('scriptData', { op: 'set', name: String(n), value: v === undefined ? null : v }); },
    getScriptData: function (n) { return local('scriptData', { op: 'get', name: String(n) }); },
    removeScriptData: function (n) { local('scriptData', { op: 'remove', name: String(n) }); },
    removeAllScriptData: function () { local('scriptData', { op: 'clear' }); },
    setScriptError: function (k, v) { local('scriptError', { op: 'set', name: String(k), value: v === undefined ? null : v }); },
    getScriptError: function (k) { return local('scriptError', { op: 'get', name: String(k) }); },
    removeScriptError: function (k) { local('scriptError', { op: 'remove', name: String(k) }); },
    removeAllScriptErrors: function () { local('scriptError', { op: 'clear' }); },
    hasScriptErrors: function () { return local('scriptError', { op: 'has' }); },
    exit: function () { L('exit', 'null'); },
    getRemainingMilliseconds: function () { return local('remaining'); },
    getPlayer: function () {
      if (current === undefined) current = CTX.playerId ? loadPlayer(CTX.playerId) : null;
      return current;
    },
    loadPlayer: loadPlayer,
    getLog: function () { return SparkLog; },
    runtimeCollection: function (n) { return lib('collections').collection('runtime', n, true); },
    metaCollection: function (n) { return lib('collections').collection('meta', n, false); },
    systemCollection: function (n) { return lib('collections').collection('system', n, false); },
    getCache: function () { return cache; },
    getConfig: function () { return config; },
    getScheduler: function () { return lib('scheduler'); },
    lockKey: function (name, tryMillis) { return host('lock', { op: 'lock', name: String(name), wait: Number(tryMillis) || 0 }); },
    unlockKey: function (name) { return host('lock', { op: 'unlock', name: String(name) }); },
    unlockKeyFully: function (name) { return host('lock', { op: 'unlockFully', name: String(name) }); }
  };
  alias(Spark, ['data', 'player', 'log', 'config', 'cache', 'remainingMilliseconds']);
  Object.freeze(Spark);
  function load(name, once) { L('require', enc({ name: String(name), once: once })); }
  g.Spark = Spark;
  g.require = function (name) { load(name, false); };
  g.requireOnce = function (name) { load(name, true); };
})(globalThis);
`;

/** Parts of the API compiled at their first use: each a function of the prelude's internals. */
export const LIBS: Record<string, string> = {
  scheduler: SCHEDULER_LIB,
  collections: `(function (I) {
  'use strict';
  var host = I.host, local = I.local, copy = I.copy, alias = I.alias;
  // Cursors: the query runs once, at the first read, with sort, skip and limit applied in that order whatever
  // order the script called them in (as MongoDB does).
  function Cursor(coll, query, fields) {
    this._c = coll; this._q = query || {}; this._f = fields; this._s = undefined; this._k = 0; this._l = undefined;
    this._docs = null; this._i = 0;
  }
  Cursor.prototype._load = function () {
    if (this._docs === null) {
      var body = { query: this._q, skip: this._k };
      if (this._f !== undefined && this._f !== null) body.fields = this._f;
      if (this._s !== undefined && this._s !== null) body.sort = this._s;
      if (this._l !== undefined && this._l !== 0) body.limit = Math.abs(this._l);
      this._docs = this._c._call('find', body);
    }
    return this._docs;
  };
  Cursor.prototype.limit = function (n) { this._l = n; return this; };
  Cursor.prototype.skip = function (n) { this._k = n; return this; };
  Cursor.prototype.sort = function (s) { this._s = s; return this; };
  Cursor.prototype.hasNext = function () { return this._i < this._load().length; };
  Cursor.prototype.next = function () {
    var docs = this._load();
    if (this._i >= docs.length) throw new Error('no more documents in the cursor');
    return docs[this._i++];
  };
  Cursor.prototype.curr = function () { return this._i > 0 ? this._load()[this._i - 1] : null; };
  Cursor.prototype.toArray = function () { return this._load().slice(this._i); };
  Cursor.prototype.size = function () { return this._load().length; };
  Cursor.prototype.count = function () { return this._c.count(this._q); };
  Cursor.prototype.toJSON = function () { return this.toArray(); };

  function Collection(kind, name, writable) { this._kind = kind; this._name = String(name); this._w = writable; }
  Collection.prototype._call = function (verb, body) {
    return host('collection', { kind: this._kind, name: this._name, verb: verb, body: body });
  };
  Collection.prototype._write = function (verb, body) {
    if (!this._w) throw new Error('the ' + this._kind + ' collection ' + this._name + ' is read-only in scripts');
    return this._call(verb, body);
  };
  Collection.prototype.find = function (query, fields) { return new Cursor(this, query, fields); };
  Collection.prototype.findOne = function (query, fields, orderBy) {
    var body = { query: query || {}, limit: 1 };
    if (fields !== undefined && fields !== null) body.fields = fields;
    if (orderBy !== undefined && orderBy !== null) body.sort = orderBy;
    var docs = this._call('find', body);
    return docs.length > 0 ? docs[0] : null;
  };
  Collection.prototype.count = function (query) { return this._call('count', { query: query || {} }); };
  Collection.prototype.distinct = function (key, query) {
    return this._call('distinct', { key: key, query: query || {} }).values;
  };
  Collection.prototype.aggregate = function (first, more) {
    var stages = Object.prototype.toString.call(first) === '[object Array]' ? first : [first];
    return { result: this._call('aggregate', stages.concat(more || [])) };
  };
  Collection.prototype.insert = function (docs) { this._write('insert', docs); return true; };
  Collection.prototype.save = function (doc) { this._write('save', doc); return true; };
  Collection.prototype.update = function (query, update, upsert, multi) {
    this._write('update', { query: query || {}, update: update, upsert: !!upsert, multi: !!multi });
    return true;
  };
  Collection.prototype.updateMulti = function (query, update) { return this.update(query, update, false, true); };
  Collection.prototype.remove = function (query) { this._write('remove', { query: query || {} }); return true; };
  Collection.prototype.findAndModify = function (query, a, b, c, d, e, f) {
    var body = { query: query || {} };
    if (arguments.length <= 2) body.update = a;
    else if (arguments.length === 3) { body.sort = a; body.update = b; }
    else {
      if (a) body.fields = a;
      if (b) body.sort = b;
      if (c) body.remove = true; else body.update = d;
      body['new'] = !!e; body.upsert = !!f;
    }
    return this._write('findAndModify', body).value;
  };
  Collection.prototype.findAndRemove = function (query) {
    return this._write('findAndModify', { query: query || {}, remove: true }).value;
  };
  return { collection: function (kind, name, writable) { return new Collection(kind, name, writable); } };
})`,
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
