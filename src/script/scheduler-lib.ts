// Spark.getScheduler() as the sandbox sees it: compiled at its first use (prelude.ts LIBS). The job is written by
// the host (host-scheduler.ts) in the execution's transaction: a script that fails schedules nothing.
export const SCHEDULER_LIB = `(function (I) {
  'use strict';
  var host = I.host, context = I.context;
  function key(k) { return k === undefined || k === null ? null : String(k); }
  return Object.freeze({
    inSeconds: function (module, delaySeconds, data, k) {
      return host('scheduler', { op: 'inSeconds', module: String(module), delay: Number(delaySeconds),
        data: data === undefined ? null : data, key: key(k), playerId: context().playerId || null });
    },
    cancel: function (k) { host('scheduler', { op: 'cancel', key: String(k) }); }
  });
})`;
