// Spark.sendRequest / sendRequestAs / logEvent and the SparkRequests global as the sandbox sees them (a library of
// the prelude, compiled at its first use), over one host call `request` (host-requests.ts).
export const REQUESTS_LIB = `(function (I) {
  'use strict';
  var host = I.host, local = I.local, copy = I.copy;
  var NAMES = ['RegistrationRequest', 'AuthenticationRequest', 'DeviceAuthenticationRequest', 'AccountDetailsRequest',
    'LogEventRequest', 'LeaderboardDataRequest', 'AroundMeLeaderboardRequest'];
  function current() {
    var id = local('context').playerId;
    if (!id) throw new Error('this script has no player to send the request as: use sendRequestAs or SendAs');
    return id;
  }
  function send(req, playerId, scripts) {
    if (req === null || typeof req !== 'object') throw new Error('a request is an object with its "@class"');
    return host('request', { request: copy(req), playerId: playerId === undefined || playerId === null ? null : String(playerId), scripts: scripts === true });
  }
  var classes = {};
  for (var i = 0; i < NAMES.length; i++) {
    (function (name) {
      var C = function () { this['@class'] = '.' + name; };
      C.prototype.Send = function () { return send(this, current()); };
      C.prototype.SendAs = function (playerId) { return send(this, playerId); };
      C.prototype.Execute = function () { return send(this, current(), true); };
      C.prototype.ExecuteAs = function (playerId) { return send(this, playerId, true); };
      classes[name] = C;
    })(NAMES[i]);
  }
  Object.freeze(classes);
  return {
    classes: classes,
    sendRequest: function (req) { return send(req, current()); },
    sendRequestAs: function (req, playerId) { return send(req, playerId); },
    logEvent: function (eventKey, values) {
      var req = copy(values || {});
      req['@class'] = '.LogEventRequest'; req.eventKey = eventKey;
      var answer = send(req, current());
      if (answer.error) throw new Error('logEvent ' + eventKey + ' failed: ' + JSON.stringify(answer.error));
    }
  };
})`;
