// Substring search in O(n + m) (Knuth–Morris–Pratt) for $indexOfCP, $split, $replaceOne and $replaceAll:
// V8's indexOf/split/replaceAll take O(n × m) on hostile inputs ("a" × 2,000,000 searched for a 1,001-character
// "a…ab…a" took 0.45 s, and the time grows with the pattern), so user text never goes through them.

/** The KMP failure table: for each prefix length, the longest proper border. */
function failureTable(pat: string): Int32Array {
  const fail = new Int32Array(pat.length + 1);
  fail[0] = -1;
  let k = -1;
  for (let i = 0; i < pat.length; i++) {
    while (k >= 0 && pat.charCodeAt(k) !== pat.charCodeAt(i)) k = fail[k]!;
    k++;
    fail[i + 1] = k;
  }
  return fail;
}

/** Start positions (code units) of the non-overlapping occurrences of a non-empty `pat`, left to right. */
export function* occurrences(s: string, pat: string, from = 0): Generator<number> {
  const fail = failureTable(pat);
  let j = 0;
  for (let i = from; i < s.length; i++) {
    while (j >= 0 && pat.charCodeAt(j) !== s.charCodeAt(i)) j = fail[j]!;
    j++;
    if (j === pat.length) {
      yield i - pat.length + 1;
      j = 0;
    }
  }
}

/** The first occurrence at or after `from`, or -1 (an empty pattern is found at `from` if within `s`). */
export function indexOfLinear(s: string, pat: string, from = 0): number {
  if (pat === '') return from <= s.length ? from : -1;
  for (const at of occurrences(s, pat, from)) return at;
  return -1;
}

/** `s.split(pat)` for a non-empty pattern. */
export function splitLinear(s: string, pat: string): string[] {
  const out: string[] = [];
  let last = 0;
  for (const at of occurrences(s, pat)) {
    out.push(s.slice(last, at));
    last = at + pat.length;
  }
  out.push(s.slice(last));
  return out;
}

/** Replaces the first or every occurrence of a non-empty pattern. */
export function replaceLinear(s: string, pat: string, repl: string, all: boolean): string {
  const parts: string[] = [];
  let last = 0;
  for (const at of occurrences(s, pat)) {
    parts.push(s.slice(last, at), repl);
    last = at + pat.length;
    if (!all) break;
  }
  parts.push(s.slice(last));
  return parts.join('');
}
