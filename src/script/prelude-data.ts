// Spark.getGameDataService() as the sandbox sees it (a library of the prelude, compiled at its first use): the
// original's SparkGameDataService, SparkDataItem, persistor, condition and sort builders, over one host call
// `data` (host-data.ts). A query's cursor reads pages of 100 items as the script walks it.
export const DATA_LIB = `(function (I) {
  'use strict';
  var host = I.host, copy = I.copy;
  function Result(error, doc) { this._e = error || null; this._d = doc === undefined ? null : doc; }
  Result.prototype.error = function () { return this._e; };
  Result.prototype.document = function () { return this._d; };

  function Condition(node) { this._n = node; }
  Condition.prototype.and = function (c) { return new Condition({ condition: 'AND', rules: [this._n, c._n] }); };
  Condition.prototype.or = function (c) { return new Condition({ condition: 'OR', rules: [this._n, c._n] }); };
  Condition.prototype.negate = function () { return new Condition({ condition: 'NOT', rules: [this._n] }); };
  Condition.prototype.toJSON = function () { return this._n; };
  function Operand(field, strings) { this._f = String(field); this._s = strings; }
  function rule(op) {
    return function (v) { return new Condition({ field: this._f, operator: op, value: v }); };
  }
  Operand.prototype.eq = rule('EQ'); Operand.prototype.ne = rule('NE');
  Operand.prototype.gt = rule('GT'); Operand.prototype.lt = rule('LT');
  Operand.prototype.ge = rule('GE'); Operand.prototype.le = rule('LE');
  Operand.prototype['in'] = rule('IN');
  Operand.prototype.between = function (low, high) { return this.ge(low).and(this.le(high)); };
  Operand.prototype.startsWith = function (p) {
    if (!this._s) throw new Error('startsWith applies to string fields (S), not N');
    return rule('STARTSWITH').call(this, p);
  };

  function SortOrder(field, asc) { this._k = []; this.add(field, asc); }
  SortOrder.prototype.add = function (field, asc) { this._k.push({ field: String(field), asc: asc !== false }); return this; };

  function call(args) { return host('data', args); }

  function Item(type, id, data, version, expiresAt, loaded) {
    this._t = type; this._id = id; this._d = data; this._v = version; this._x = expiresAt;
    this._base = loaded ? copy(data) : null;
  }
  Item.prototype.getId = function () { return this._id; };
  Item.prototype.getType = function () { return this._t; };
  Item.prototype.getData = function () { return this._d; };
  Item.prototype.setData = function (d) { this._d = d === undefined || d === null ? {} : d; };
  Item.prototype.getVersion = function () { return this._v; };
  Item.prototype.getTTL = function () { return this._x; };
  Item.prototype.setTTL = function (ms) { this._x = ms === undefined || ms === null ? null : Number(ms); };
  Item.prototype.getValidationErrors = function () { return []; };
  Item.prototype['delete'] = function () {
    var r = call({ op: 'delete', type: this._t, id: this._id });
    return new Result(r.error);
  };
  Item.prototype.persistor = function () { return new Persistor(this); };
  function itemOf(o) { return new Item(o.type, o.id, o.data, o.version, o.expiresAt, true); }

  function Persistor(item) { this._i = item; this._o = {}; }
  Persistor.prototype.withAtomicIncrements = function () { this._o.atomic = true; return this; };
  Persistor.prototype.withOverwrite = function () { this._o.overwrite = true; return this; };
  Persistor.prototype.withVersionCheck = function () { this._o.versionCheck = true; return this; };
  Persistor.prototype.withConditionCheck = function (c) { this._o.condition = c._n; return this; };
  Persistor.prototype.withErrorOnTypeConversion = function () { return this; };
  Persistor.prototype.persist = function () {
    var it = this._i, o = this._o;
    var r = call({ op: 'put', type: it._t, id: it._id, data: it._d, base: it._base, version: it._v,
      expiresAt: it._x, overwrite: !!o.overwrite, atomic: !!o.atomic, versionCheck: !!o.versionCheck,
      condition: o.condition === undefined ? null : o.condition });
    if (r.error) return new Result(r.error);
    it._d = r.item.data; it._base = copy(r.item.data); it._v = r.item.version; it._x = r.item.expiresAt;
    return new Result(null, it);
  };

  function Cursor(type, condition, sort) {
    this._t = type; this._c = condition; this._s = sort; this._buf = []; this._i = 0; this._next = 0;
  }
  Cursor.prototype._fill = function () {
    while (this._i >= this._buf.length && this._next !== null) {
      var r = call({ op: 'query', type: this._t, condition: this._c, sort: this._s, offset: this._next });
      if (r.error) throw new Error(r.error);
      this._buf = r.items; this._i = 0; this._next = r.nextOffset;
    }
    return this._i < this._buf.length;
  };
  Cursor.prototype.hasNext = function () { return this._fill(); };
  Cursor.prototype.next = function () {
    if (!this._fill()) throw new Error('no more items in the cursor');
    return itemOf(this._buf[this._i++]);
  };
  Cursor.prototype.toArray = function () { var out = []; while (this.hasNext()) out.push(this.next()); return out; };

  function QueryResult(error, cursor) { this._e = error || null; this._c = cursor; }
  QueryResult.prototype.error = function () { return this._e; };
  QueryResult.prototype.cursor = function () { return this._c; };

  var service = {
    S: function (field) { return new Operand(field, true); },
    N: function (field) { return new Operand(field, false); },
    sort: function (field, asc) { return new SortOrder(field, asc); },
    createItem: function (type, id) { return new Item(String(type), String(id), {}, 0, null, false); },
    getItem: function (type, id) {
      var r = call({ op: 'get', type: String(type), id: String(id) });
      return new Result(r.error, r.item ? itemOf(r.item) : null);
    },
    deleteItem: function (type, id) {
      var r = call({ op: 'delete', type: String(type), id: String(id) });
      return new Result(r.error);
    },
    queryItems: function (type, condition, sort) {
      var c = condition ? condition._n : null, s = sort ? sort._k : null;
      // The first page is read now, so that a bad query answers its error() at once.
      var cursor = new Cursor(String(type), c, s);
      try { cursor._fill(); } catch (e) { return new QueryResult(String(e.message), null); }
      return new QueryResult(null, cursor);
    }
  };
  return { service: function () { return service; } };
})`;
