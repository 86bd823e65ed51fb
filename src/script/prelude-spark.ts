// The less used members of `Spark` as the sandbox sees them (libraries of the prelude, compiled in the execution's
// context at the first call of one of their members: prelude.ts `later`): scriptData removal, script errors, the
// cache, the configuration, locks, meta and system collections, external ids, and the log.
export const SPARK_LIB = `(function (I) {
  'use strict';
  var host = I.host, local = I.local, lib = I.lib, alias = I.alias;
  var cache = {
    put: function (k, v) { host('cache', { op: 'put', key: String(k), value: v }); },
    get: function (k) { var r = host('cache', { op: 'get', key: String(k) }); return r === undefined ? null : r; },
    remove: function (k) { host('cache', { op: 'remove', key: String(k) }); },
    removeAll: function (pattern) { host('cache', { op: 'removeAll', pattern: pattern === undefined ? null : String(pattern) }); }
  };
  var config = alias({
    getStage: function () { return I.context().stage; },
    getApiKey: function () { return I.context().apiKey; }
  }, ['stage', 'apiKey']);
  return {
    removeScriptData: function (n) { local('scriptData', { op: 'remove', name: String(n) }); },
    removeAllScriptData: function () { local('scriptData', { op: 'clear' }); },
    setScriptError: function (k, v) { local('scriptError', { op: 'set', name: String(k), value: v === undefined ? null : v }); },
    getScriptError: function (k) { return local('scriptError', { op: 'get', name: String(k) }); },
    removeScriptError: function (k) { local('scriptError', { op: 'remove', name: String(k) }); },
    removeAllScriptErrors: function () { local('scriptError', { op: 'clear' }); },
    hasScriptErrors: function () { return local('scriptError', { op: 'has' }); },
    getRemainingMilliseconds: function () { return local('remaining'); },
    metaCollection: function (n) { return lib('collections').collection('meta', n, false); },
    systemCollection: function (n) { return lib('collections').collection('system', n, false); },
    getCache: function () { return cache; },
    getConfig: function () { return config; },
    lockKey: function (name, tryMillis) { return host('lock', { op: 'lock', name: String(name), wait: Number(tryMillis) || 0 }); },
    unlockKey: function (name) { return host('lock', { op: 'unlock', name: String(name) }); },
    unlockKeyFully: function (name) { return host('lock', { op: 'unlockFully', name: String(name) }); },
    loadPlayerByExternalId: function (system, id) {
      var s = String(system);
      if (!/^[A-Za-z0-9_]{1,32}$/.test(s)) throw new Error('an external system is 1 to 32 letters, digits or _');
      if (id === null || id === undefined) return null;
      var q = {}; q['externalIds.' + s] = String(id);
      var d = lib('collections').collection('system', 'player', false).findOne(q, { _id: 1 });
      return d ? I.loadPlayer(typeof d._id === 'object' && d._id !== null ? d._id.$oid : d._id) : null;
    }
  };
})`;

/** Spark.getLog(): the level is the execution's own (the library is compiled per execution). */
export const LOG_LIB = `(function (I) {
  'use strict';
  var local = I.local;
  var log = { level: 'DEBUG' };
  var LEVELS = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3 };
  function logAt(level) { return function (msg) { if (LEVELS[level] >= LEVELS[log.level]) local('log', { level: level, log: msg }); }; }
  var SparkLog = {
    debug: logAt('DEBUG'), info: logAt('INFO'), warn: logAt('WARN'), error: logAt('ERROR'),
    getLevel: function () { return log.level; },
    setLevel: function (l) { if (LEVELS.hasOwnProperty(l)) log.level = l; }
  };
  return { getLog: function () { return SparkLog; } };
})`;
