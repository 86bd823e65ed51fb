// The stored form → canonical extended JSON converter of the exports, checked against bson's EJSON and a round trip.
import { Double, EJSON } from 'bson';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storedToCanonical } from '../../src/nosql/canonical-json.js';
import { redactStored } from '../../src/nosql/mongo-export.js';
import { docArb } from '../../src/query/arbitraries.test-util.js';
import { type Doc, fromWire, isDoc, ObjectId, toStored, toWire, type Value } from '../../src/query/values.js';

/** What bson is given: plain numbers outside int32 become Doubles, so that bson keeps them doubles too. */
function forBson(v: Value): unknown {
  if (typeof v === 'number') {
    const int32 = Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 && !Object.is(v, -0);
    return int32 ? v : new Double(v);
  }
  if (Array.isArray(v)) return v.map(forBson);
  if (isDoc(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = forBson(v[k] as Value);
    return out;
  }
  return v;
}

describe('storedToCanonical', () => {
  it('generated documents → the same text as EJSON.serialize(relaxed: false), field order included', () => {
    fc.assert(
      fc.property(docArb(true), (doc) => {
        const ours = JSON.stringify(storedToCanonical(toStored(doc)));
        expect(ours).toBe(JSON.stringify(EJSON.serialize(forBson(doc), { relaxed: false })));
      }),
      { numRuns: 500 },
    );
  });

  it('generated documents → read back by fromWire to equal values (types kept)', () => {
    fc.assert(
      fc.property(docArb(true), (doc) => {
        const back = fromWire(storedToCanonical(toStored(doc)));
        expect(JSON.stringify(toWire(back))).toBe(JSON.stringify(toWire(doc)));
      }),
      { numRuns: 300 },
    );
  });

  it('each type → its canonical wrapper; a field order JSONB forgets is kept', () => {
    const oid = ObjectId.createFromHexString('5f1d7a2b9c8e4d3a2b1c0d9e');
    const doc: Doc = {
      zeta: 5,
      a: 1.5,
      long: 9007199254740993n,
      big: 2 ** 40,
      neg0: -0,
      nan: Number.NaN,
      inf: Number.NEGATIVE_INFINITY,
      when: new Date(Date.UTC(2026, 0, 2)),
      _id: oid,
      list: [1, 'x', null, true, { b: 2, a: 1 }],
    };
    expect(JSON.stringify(storedToCanonical(toStored(doc)))).toBe(
      JSON.stringify({
        zeta: { $numberInt: '5' },
        a: { $numberDouble: '1.5' },
        long: { $numberLong: '9007199254740993' },
        big: { $numberDouble: '1099511627776.0' },
        // The stored form keeps no sign of zero (MongoDB compares -0 and 0 equal).
        neg0: { $numberInt: '0' },
        nan: { $numberDouble: 'NaN' },
        inf: { $numberDouble: '-Infinity' },
        when: { $date: { $numberLong: String(Date.UTC(2026, 0, 2)) } },
        _id: { $oid: '5f1d7a2b9c8e4d3a2b1c0d9e' },
        list: [{ $numberInt: '1' }, 'x', null, true, { b: { $numberInt: '2' }, a: { $numberInt: '1' } }],
      }),
    );
  });

  it('a field named __proto__ stays a plain field', () => {
    const stored = JSON.parse('{"__proto__": {"x": 1}, "a": 2}');
    const out = storedToCanonical(stored) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('redactStored', () => {
  const player = {
    _id: 'p1',
    userName: 'ann',
    Password: 'hash',
    passwordHash: 'h',
    salt: 's',
    authTokens: ['t'],
    sessions: [{ token: 'x' }],
    location: { city: 'Paris' },
    IPAddress: '10.0.0.1',
    lastIp: '10.0.0.2',
    scriptData: { location: 'kept: owner data' },
    $o: [
      '_id',
      'userName',
      'Password',
      'passwordHash',
      'salt',
      'authTokens',
      'sessions',
      'location',
      'IPAddress',
      'lastIp',
      'scriptData',
    ],
  };

  it('player: passwords, tokens and location data are left out (any case), other fields and nested data kept', () => {
    const out = storedToCanonical(redactStored('player', player));
    expect(out).toEqual({ _id: 'p1', userName: 'ann', scriptData: { location: 'kept: owner data' } });
  });

  it('externalAuthentication: secrets left out, location kept; other collections untouched', () => {
    const doc = {
      _id: 'e1',
      accessToken: 'a',
      refreshToken: 'r',
      secret: 's',
      provider: 'fb',
      location: 'x',
    };
    expect(redactStored('externalAuthentication', doc)).toEqual({ _id: 'e1', provider: 'fb', location: 'x' });
    expect(redactStored('script.things', player)).toBe(player);
  });

  it('the input document is not changed', () => {
    const copy = structuredClone(player);
    redactStored('player', player);
    expect(player).toEqual(copy);
  });
});
