// Generated regex patterns for the $regexFind tests: a small grammar rendered as PCRE source that means the
// same in JavaScript (with and without the u flag) and in PCRE2, including which match and which captures
// are reported, as long as no repeated group holds a capture group or can match the empty string (there
// JavaScript resets captures per iteration and refuses empty iterations, where PCRE does neither).
import fc from 'fast-check';

export interface GenPattern {
  src: string;
  nullable: boolean;
  caps: boolean;
}

const ATOMS = ['a', 'b', 'c', 'x', '.', '[ab]', '[^a]', '\\d', '\\w', ' '];
const QUANTS = ['*', '+', '?', '{2}', '{1,2}', '{0,2}', '{2,}'];

const atom: fc.Arbitrary<GenPattern> = fc
  .constantFrom(...ATOMS)
  .map((src) => ({ src, nullable: false, caps: false }));

function quantify(item: GenPattern, q: string, lazy: boolean): GenPattern {
  const min = q === '+' || q === '{2}' || q === '{1,2}' || q === '{2,}' ? 1 : 0;
  return { src: `${item.src}${q}${lazy ? '?' : ''}`, nullable: item.nullable || min === 0, caps: item.caps };
}

function seq(items: GenPattern[]): GenPattern {
  return {
    src: items.map((i) => i.src).join(''),
    nullable: items.every((i) => i.nullable),
    caps: items.some((i) => i.caps),
  };
}

function alt(seqs: GenPattern[]): GenPattern {
  return {
    src: seqs.map((s) => s.src).join('|'),
    nullable: seqs.some((s) => s.nullable),
    caps: seqs.some((s) => s.caps),
  };
}

/** Zero-width assertions, as regex.ts translates them (compared against V8 on the translation only). */
const assertion: fc.Arbitrary<GenPattern> = fc
  .constantFrom('\\b', '\\B', '$', '^')
  .map((src) => ({ src, nullable: true, caps: false }));

/**
 * Patterns of the safe subset (see above), optionally anchored by a leading ^ (same in JS and PCRE without m);
 * with `assertions`, also \b, \B, $ and ^ anywhere (their raw JavaScript meaning differs from PCRE's: only for
 * oracles that run the translation).
 */
export function patternArb(maxDepth = 3, assertions = false): fc.Arbitrary<string> {
  const { node } = fc.letrec<{ node: GenPattern; item: GenPattern }>((tie) => ({
    item: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      atom,
      assertions ? assertion : atom,
      fc.tuple(atom, fc.constantFrom(...QUANTS), fc.boolean()).map(([a, q, lazy]) => quantify(a, q, lazy)),
      fc.tuple(tie('node'), fc.boolean()).map(([inner, capture]) => ({
        src: capture ? `(${inner.src})` : `(?:${inner.src})`,
        nullable: inner.nullable,
        caps: capture || inner.caps,
      })),
      fc
        .tuple(tie('node'), fc.constantFrom(...QUANTS), fc.boolean())
        .filter(([inner]) => !inner.caps && !inner.nullable)
        .map(([inner, q, lazy]) => quantify({ ...inner, src: `(?:${inner.src})` }, q, lazy)),
    ),
    node: fc
      .array(fc.array(tie('item'), { minLength: 1, maxLength: 3 }).map(seq), { minLength: 1, maxLength: 2 })
      .map(alt),
  }));
  return fc
    .tuple(node, fc.boolean())
    .map(([n, anchored]) => (anchored ? `^(?:${n.src})` : n.src))
    .filter((src) => src.length <= 60 && (src.match(/\(/g)?.length ?? 0) <= 12 && maxDepth > 0);
}

/** Subjects over the pattern's letters, digits, spaces, a newline and a non-ASCII BMP letter. */
export const subjectArb = fc
  .array(fc.constantFrom('a', 'b', 'c', 'x', '1', ' ', '\n', 'é', 'ab', 'ba'), { maxLength: 10 })
  .map((cs) => cs.join(''));
