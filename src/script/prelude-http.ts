// Spark.getHttp(url[, timeoutMillis]) as the sandbox sees it (a library of the prelude, compiled at its first
// use): the original's SparkHttp builder and SparkHttpResponse, over one host call `http` (host-http.ts).
export const HTTP_LIB = `(function (I) {
  'use strict';
  var host = I.host, copy = I.copy;
  var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  function utf8(s) { return unescape(encodeURIComponent(s)); }
  function base64(s) {
    var b = utf8(s), out = '';
    for (var i = 0; i < b.length; i += 3) {
      var n = (b.charCodeAt(i) << 16) | ((b.charCodeAt(i + 1) || 0) << 8) | (b.charCodeAt(i + 2) || 0);
      out += B64.charAt(n >> 18 & 63) + B64.charAt(n >> 12 & 63) +
        (i + 1 < b.length ? B64.charAt(n >> 6 & 63) : '=') + (i + 2 < b.length ? B64.charAt(n & 63) : '=');
    }
    return out;
  }
  function form(obj) {
    var parts = [];
    for (var k in obj) if (Object.prototype.hasOwnProperty.call(obj, k)) {
      var v = obj[k], list = Object.prototype.toString.call(v) === '[object Array]' ? v : [v];
      for (var i = 0; i < list.length; i++) parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(list[i] === null || list[i] === undefined ? '' : String(list[i])));
    }
    return parts.join('&');
  }
  function Response(r) { this.code = r.code; this.headers = r.headers; this.body = r.body; }
  Response.prototype.getResponseCode = function () { return this.code; };
  Response.prototype.getResponseString = function () { return this.body; };
  Response.prototype.getResponseJson = function () { try { return JSON.parse(this.body); } catch (e) { return null; } };
  Response.prototype.getHeaders = function () { return copy(this.headers); };
  Response.prototype.getCookies = function () {
    var c = this.headers['set-cookie'];
    return c === undefined ? [] : copy(c);
  };
  Response.prototype.getResponseXml = function () { throw new Error('getResponseXml is not supported: read getResponseString()'); };

  function Http(url, timeout) { this._u = String(url); this._t = timeout; this._h = {}; }
  Http.prototype.setHeaders = function (h) { for (var k in h) if (Object.prototype.hasOwnProperty.call(h, k)) this._h[k] = h[k]; return this; };
  Http.prototype.setBasicAuth = function (user, pw) { this._h.Authorization = 'Basic ' + base64(user + ':' + pw); return this; };
  Http.prototype._send = function (method, body, type) {
    var headers = copy(this._h);
    if (type !== undefined) {
      var has = false;
      for (var k in headers) if (k.toLowerCase() === 'content-type') has = true;
      if (!has) headers['Content-Type'] = type;
    }
    return new Response(host('http', { url: this._u, timeout: this._t, method: method, headers: headers, body: body }));
  };
  Http.prototype.get = function () { return this._send('GET'); };
  Http.prototype['delete'] = function () { return this._send('DELETE'); };
  var kinds = { Json: ['application/json; charset=utf-8', function (v) { return JSON.stringify(v); }],
    String: ['text/plain; charset=utf-8', function (v) { return String(v); }],
    Form: ['application/x-www-form-urlencoded', form],
    Xml: ['application/xml; charset=utf-8', function (v) { return String(v); }] };
  for (var name in kinds) {
    (function (name, type, encode) {
      Http.prototype['post' + name] = function (v) { return this._send('POST', encode(v), type); };
      Http.prototype['put' + name] = function (v) { return this._send('PUT', encode(v), type); };
    })(name, kinds[name][0], kinds[name][1]);
  }
  return { http: function (url, timeout) { return new Http(url, timeout); } };
})`;
