// Collections and cursors as the sandbox sees them (libraries of the prelude, compiled in the execution's context
// at their first use): the common calls (findOne, count, insert, save, update, remove) at the first collection
// call, cursors at the first find, and the rest (distinct, aggregate, findAndModify, indexes) at the first call
// of one of them. Each call is one host call `collection` or `index` (host-collections.ts, host-indexes.ts).
export const COLLECTIONS_LIB = `(function (I) {
  'use strict';
  var host = I.host, lib = I.lib, apply = Reflect.apply;
  function Collection(kind, name, writable) { this._kind = kind; this._name = String(name); this._w = writable; }
  Collection.prototype._call = function (verb, body) {
    return host('collection', { kind: this._kind, name: this._name, verb: verb, body: body });
  };
  Collection.prototype._write = function (verb, body) {
    if (!this._w) throw new Error('the ' + this._kind + ' collection ' + this._name + ' is read-only in scripts');
    return this._call(verb, body);
  };
  Collection.prototype.find = function (query, fields) { return lib('cursor').cursor(this, query, fields); };
  Collection.prototype.findOne = function (query, fields, orderBy) {
    var body = { query: query || {}, limit: 1 };
    if (fields !== undefined && fields !== null) body.fields = fields;
    if (orderBy !== undefined && orderBy !== null) body.sort = orderBy;
    var docs = this._call('find', body);
    return docs.length > 0 ? docs[0] : null;
  };
  Collection.prototype.count = function (query) { return this._call('count', { query: query || {} }); };
  Collection.prototype.insert = function (docs) { this._write('insert', docs); return true; };
  Collection.prototype.save = function (doc) { this._write('save', doc); return true; };
  Collection.prototype.update = function (query, update, upsert, multi) {
    this._write('update', { query: query || {}, update: update, upsert: !!upsert, multi: !!multi });
    return true;
  };
  Collection.prototype.remove = function (query) { this._write('remove', { query: query || {} }); return true; };
  var more = ['distinct', 'aggregate', 'updateMulti', 'findAndModify', 'findAndRemove', 'ensureIndex', 'dropIndex',
    'dropIndexByName', 'getIndexInfo'];
  for (var i = 0; i < more.length; i++) {
    (function (n) {
      Collection.prototype[n] = function () { return apply(lib('collectionsMore')[n], this, arguments); };
    })(more[i]);
  }
  return { collection: function (kind, name, writable) { return new Collection(kind, name, writable); } };
})`;

/** Cursors: the query runs once, at the first read, with sort, skip and limit applied in that order whatever order
 * the script called them in (as MongoDB does). */
export const CURSOR_LIB = `(function (I) {
  'use strict';
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
  return { cursor: function (coll, query, fields) { return new Cursor(coll, query, fields); } };
})`;

/** The less used collection calls: methods of Collection.prototype, called with the collection as this. */
export const COLLECTIONS_MORE_LIB = `(function (I) {
  'use strict';
  var host = I.host;
  return {
    distinct: function (key, query) { return this._call('distinct', { key: key, query: query || {} }).values; },
    aggregate: function (first, more) {
      var stages = Object.prototype.toString.call(first) === '[object Array]' ? first : [first];
      return { result: this._call('aggregate', stages.concat(more || [])) };
    },
    updateMulti: function (query, update) { return this.update(query, update, false, true); },
    findAndModify: function (query, a, b, c, d, e, f) {
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
    },
    findAndRemove: function (query) { return this._write('findAndModify', { query: query || {}, remove: true }).value; },
    ensureIndex: function (keys, options) {
      var o = options || {};
      index(this, { op: 'ensure', keys: keys, indexName: o.name === undefined ? null : String(o.name), unique: o.unique === true });
    },
    dropIndex: function (keys) {
      index(this, typeof keys === 'string' ? { op: 'drop', indexName: keys } : { op: 'drop', keys: keys });
    },
    dropIndexByName: function (name) { index(this, { op: 'drop', indexName: String(name) }); },
    getIndexInfo: function () { return index(this, { op: 'info' }); }
  };
  function index(coll, args) {
    args.kind = coll._kind; args.name = coll._name;
    return host('index', args);
  }
})`;
