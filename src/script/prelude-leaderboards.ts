// Spark.getLeaderboards() as the sandbox sees it (a library of the prelude, compiled at its first use): the
// original's SparkLeaderboards, SparkLeaderboard, its entry cursors and SparkLeaderboardEntry, over one host
// call `leaderboard` (host-leaderboards.ts).
export const LEADERBOARDS_LIB = `(function (I) {
  'use strict';
  var host = I.host, copy = I.copy;
  function call(args) { return host('leaderboard', args); }
  var RESERVED = { userId: 1, userName: 1, when: 1, rank: 1 };

  function Entry(e, total) { this._e = e; this._n = total; }
  Entry.prototype.getUserId = function () { return this._e.userId; };
  Entry.prototype.getUserName = function () { return this._e.userName === undefined ? null : this._e.userName; };
  Entry.prototype.getRank = function () { return this._e.rank; };
  Entry.prototype.getRankPercentage = function () { return this._n > 0 ? Math.ceil(this._e.rank * 100 / this._n) : 0; };
  Entry.prototype.getWhen = function () { return this._e.when; };
  Entry.prototype.getAttribute = function (n) { var v = this._e[n]; return v === undefined ? null : copy(v); };
  Entry.prototype.toJSON = function () { return copy(this._e); };

  function Cursor(board, list) { this._b = board; this._l = list; this._i = 0; this._n = undefined; }
  Cursor.prototype._total = function () { if (this._n === undefined) this._n = this._b.getEntryCount(); return this._n; };
  Cursor.prototype.hasNext = function () { return this._i < this._l.length; };
  Cursor.prototype.next = function () {
    if (this._i >= this._l.length) throw new Error('no more entries in the cursor');
    return new Entry(this._l[this._i++], this._total());
  };
  Cursor.prototype.toArray = function () { var out = []; while (this.hasNext()) out.push(this.next()); return out; };
  Cursor.prototype.toJSON = function () { return copy(this._l.slice(this._i)); };

  function Board(d) { this._d = d; }
  Board.prototype._call = function (op, args) {
    args = args || {}; args.op = op; args.shortCode = this._d.shortCode;
    return call(args);
  };
  Board.prototype.getShortCode = function () { return this._d.shortCode; };
  Board.prototype.getName = function () { return this._d.name; };
  Board.prototype.getScoreFields = function () { return copy(this._d.scoreFields); };
  Board.prototype.getIdFields = function () { return ['userId']; };
  Board.prototype.isPartitioned = function () { return this._d.partitioned; };
  Board.prototype.getPartitions = function () {
    var codes = this._call('partitions'), out = [];
    for (var i = 0; i < codes.length; i++) { var b = get(codes[i]); if (b) out.push(b); }
    return out;
  };
  Board.prototype.getEntries = function (count, offset) {
    return new Cursor(this, this._call('entries', { count: count, offset: offset }) || []);
  };
  Board.prototype.getEntriesFromPlayer = function (playerId, count) {
    return new Cursor(this, this._call('fromPlayer', { playerId: String(playerId), count: count }) || []);
  };
  Board.prototype.getEntryCount = function () { return this._call('count') || 0; };
  Board.prototype.getRankForScore = function (score) { return this._call('rankForScore', { score: score }); };
  Board.prototype.deleteEntry = function (playerId, deleteRunningTotals) {
    return this._call('deleteEntry', { playerId: String(playerId) }) === true;
  };

  function get(code) {
    var d = call({ op: 'describe', shortCode: String(code) });
    return d ? new Board(d) : null;
  }
  var leaderboards = {
    getLeaderboard: get,
    listLeaderboards: function () {
      var codes = call({ op: 'list' }), out = [];
      for (var i = 0; i < codes.length; i++) { var b = get(codes[i]); if (b) out.push(b); }
      return out;
    }
  };
  return { leaderboards: function () { return leaderboards; } };
})`;
