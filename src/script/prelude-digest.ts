// Spark.getDigester() as the sandbox sees it (a library of the prelude, compiled at its first use): md5Hex,
// sha256Base64, hmacSha256Hex(key, value) and the rest, for md5, sha1, sha256, sha384 and sha512, over one host
// call `digest` (host-digest.ts).
export const DIGEST_LIB = `(function (I) {
  'use strict';
  var host = I.host, digester = {};
  var algs = ['md5', 'sha1', 'sha256', 'sha384', 'sha512'], encodings = { Hex: 'hex', Base64: 'base64' };
  for (var i = 0; i < algs.length; i++) {
    for (var e in encodings) {
      (function (alg, name, encoding) {
        var Alg = alg.charAt(0).toUpperCase() + alg.slice(1);
        digester[alg + name] = function (value) { return host('digest', { alg: alg, encoding: encoding, value: value }); };
        digester['hmac' + Alg + name] = function (key, value) {
          return host('digest', { alg: alg, encoding: encoding, hmac: true, key: key, value: value });
        };
      })(algs[i], e, encodings[e]);
    }
  }
  Object.freeze(digester);
  return { digester: function () { return digester; } };
})`;
