// Stored text → wire JSON by scanning the text once, without parsing it into JavaScript values.
//
// The stored form (stored-form.ts) already is the wire form except for three things, which the scanner
// rewrites: dates ({"$date": ms} → toWire's ISO text, or a $numberLong outside years 1970-9999), the "$o"
// field order (an object that has it is written in that order, without it), and the text PostgreSQL prints
// (", " and ": " separators; numbers as numeric prints them, which JavaScript may print otherwise: 1e+21,
// 5e-7, 1.5 for 1.50). Strings are copied as they are: PostgreSQL escapes exactly what JSON.stringify
// escapes (", \, \b \f \n \r \t, other controls as lowercase \u00xx), and the scanner checks that each
// escape it copies is one of those.
//
// The answer is, byte for byte, the text of the parse-and-walk path (storedTextToWireParsed); whatever the
// scanner cannot prove it writes identically (a field name JavaScript would move: an array index like "0";
// an escape JSON.stringify would not write; a malformed tag or "$o") sends the whole document to that path.
import { storedTextToWireParsed } from './stored-form.js';
import { dateToWire } from './values.js';

/** Thrown inside the scan when the document needs the parse-and-walk path. */
const UNSURE = new Error('unsure');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** The wire JSON text of a stored document's JSON text: the same bytes as storedTextToWireParsed. */
export function storedTextToWire(stored: string): string {
  return scanStoredText(stored) ?? storedTextToWireParsed(stored);
}

/** The scanner alone: the wire text, or undefined when the document needs the parse-and-walk path. */
export function scanStoredText(stored: string): string | undefined {
  text = stored;
  pos = 0;
  slash = -1;
  parts.length = 0;
  try {
    value();
    skipSpace();
    if (pos !== text.length) throw UNSURE;
    return parts.join('');
  } catch (e) {
    if (e === UNSURE) return undefined;
    throw e;
  } finally {
    text = '';
    parts.length = 0;
  }
}

// The scan's state: one document at a time, synchronously (module variables are the fastest to reach). The
// answer is collected as pieces (mostly slices of the text) and joined once: concatenating them one by one
// would build a tree of strings for the collector to walk.
let text = '';
let pos = 0;
/** The position of the next backslash at or after the last search (text.length: none left). */
let slash = -1;
const parts: string[] = [];

function skipSpace(): void {
  let c = text.charCodeAt(pos);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++pos);
}

function value(): void {
  skipSpace();
  const c = text.charCodeAt(pos);
  if (c === QUOTE) parts.push(string());
  else if (c === OPEN_OBJECT) object();
  else if (c === OPEN_ARRAY) array();
  else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) parts.push(number());
  else parts.push(literal());
}

/** A string's text as it stands, after checking its escapes are the ones JSON.stringify writes. */
function string(): string {
  const t = text;
  const start = pos;
  let i = start + 1;
  let quote = t.indexOf('"', i);
  for (;;) {
    if (quote < 0) throw UNSURE;
    // The next backslash of the text, searched again only once passed (most documents have none).
    if (slash < i) {
      const found = t.indexOf('\\', i);
      slash = found < 0 ? t.length : found;
    }
    if (slash > quote) {
      pos = quote + 1;
      return t.slice(start, pos);
    }
    i = checkEscape(t, slash);
    if (i > quote) quote = t.indexOf('"', i);
  }
}

function number(): string {
  const t = text;
  const start = pos;
  let i = start;
  let plain = true; // digits only: with at most 15 and no leading zero, JavaScript prints them the same
  if (t.charCodeAt(i) === 0x2d) i++;
  const digits = i;
  for (;;) {
    const c = t.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) i++;
    else if (c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d) {
      plain = false;
      i++;
    } else break;
  }
  pos = i;
  if (i === digits) throw UNSURE;
  const lead = t.charCodeAt(digits + 1);
  // JSON has no leading zeros (01); JSON.parse refuses them, and so does the walk.
  if (t.charCodeAt(digits) === 0x30 && lead >= 0x30 && lead <= 0x39) throw UNSURE;
  const token = t.slice(start, i);
  if (plain && i - digits <= 15) {
    return token === '-0' ? '0' : token;
  }
  const n = Number(token);
  if (Number.isNaN(n)) throw UNSURE;
  return JSON.stringify(n);
}

function literal(): string {
  const c = text.charCodeAt(pos);
  const word = c === 0x66 ? 'false' : c === 0x74 ? 'true' : 'null';
  if (!text.startsWith(word, pos)) throw UNSURE;
  pos += word.length;
  return word;
}

function array(): void {
  pos++;
  parts.push('[');
  skipSpace();
  if (text.charCodeAt(pos) === CLOSE_ARRAY) {
    pos++;
    parts.push(']');
    return;
  }
  for (;;) {
    value();
    skipSpace();
    const c = text.charCodeAt(pos++);
    if (c === CLOSE_ARRAY) {
      parts.push(']');
      return;
    }
    if (c !== COMMA) throw UNSURE;
    parts.push(',');
  }
}

function object(): void {
  const open = pos;
  const first = parts.length;
  pos++;
  parts.push('{');
  skipSpace();
  if (text.charCodeAt(pos) === CLOSE_OBJECT) {
    pos++;
    parts.push('}');
    return;
  }
  for (let members = 1; ; members++) {
    skipSpace();
    if (text.charCodeAt(pos) !== QUOTE) throw UNSURE;
    const key = string();
    const initial = key.charCodeAt(1);
    // JavaScript objects put array-index names first, whatever the text's order.
    if (initial >= 0x30 && initial <= 0x39) throw UNSURE;
    if (initial === 0x24 && key === '"$o"') {
      // Written in its own order: start the object again, collecting its members.
      pos = open;
      parts.length = first;
      slash = -1;
      orderedObject();
      return;
    }
    skipSpace();
    if (text.charCodeAt(pos++) !== COLON) throw UNSURE;
    parts.push(key, ':');
    const valueAt = parts.length;
    value();
    skipSpace();
    const c = text.charCodeAt(pos++);
    if (c === CLOSE_OBJECT) {
      // A one-member object named with a $ is a tag (a $date to rewrite).
      if (members === 1 && initial === 0x24) tagged(first, key, valueAt);
      else parts.push('}');
      return;
    }
    if (c !== COMMA) throw UNSURE;
    parts.push(',');
  }
}

/** An object with "$o": its members collected, then written in that order. */
function orderedObject(): void {
  pos++;
  const first = parts.length;
  const keys: string[] = [];
  /** Where each member's value starts and ends among the parts. */
  const bounds: number[] = [];
  let names: string[] = [];
  for (;;) {
    skipSpace();
    if (text.charCodeAt(pos) !== QUOTE) throw UNSURE;
    const key = string();
    const initial = key.charCodeAt(1);
    if (initial >= 0x30 && initial <= 0x39) throw UNSURE;
    skipSpace();
    if (text.charCodeAt(pos++) !== COLON) throw UNSURE;
    if (initial === 0x24 && key === '"$o"') {
      names = orderList();
      keys.push('');
      bounds.push(parts.length, parts.length);
    } else {
      keys.push(key);
      const start = parts.length;
      value();
      bounds.push(start, parts.length);
    }
    skipSpace();
    const c = text.charCodeAt(pos++);
    if (c === CLOSE_OBJECT) break;
    if (c !== COMMA) throw UNSURE;
  }
  // "$o" alone: the walk reads it as a field list of nothing but itself.
  if (keys.length === 1) throw UNSURE;
  const collected = parts.slice(first);
  parts.length = first;
  parts.push('{');
  for (const name of names) {
    const at = keys.indexOf(name);
    if (at >= 0) {
      if (parts.length > first + 1) parts.push(',');
      parts.push(name, ':');
      for (let k = bounds[2 * at]! - first; k < bounds[2 * at + 1]! - first; k++) parts.push(collected[k]!);
      // A name listed twice is written once, at its first place, as the walk's object assignment does.
      keys[at] = '';
    } else if (name === '"$o"') {
      // "$o" listing itself: the walk writes the list as a field.
      throw UNSURE;
    }
  }
  parts.push('}');
}

/** "$o": an array of field names, as their quoted texts. */
function orderList(): string[] {
  skipSpace();
  if (text.charCodeAt(pos++) !== OPEN_ARRAY) throw UNSURE;
  const names: string[] = [];
  skipSpace();
  if (text.charCodeAt(pos) === CLOSE_ARRAY) {
    pos++;
    return names;
  }
  for (;;) {
    skipSpace();
    if (text.charCodeAt(pos) !== QUOTE) throw UNSURE;
    names.push(string());
    skipSpace();
    const c = text.charCodeAt(pos++);
    if (c === CLOSE_ARRAY) return names;
    if (c !== COMMA) throw UNSURE;
  }
}

/** The position after a backslash escape JSON.stringify would write itself; UNSURE for any other. */
function checkEscape(t: string, slash: number): number {
  const c = t.charCodeAt(slash + 1);
  // " \ b f n r t
  if (c === QUOTE || c === BACKSLASH || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74)
    return slash + 2;
  if (c !== 0x75) throw UNSURE;
  // \u00xx for a control character without a short escape, in lowercase hex.
  const hex = t.slice(slash + 2, slash + 6);
  if (!/^00[01][0-9a-f]$/.test(hex)) throw UNSURE;
  const code = Number.parseInt(hex, 16);
  if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) throw UNSURE;
  return slash + 6;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** Date.prototype.toISOString of an instant in years 1970-9999, from integer arithmetic (days to civil date). */
export function isoText(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  // Howard Hinnant's civil_from_days.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const ms3 = millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : `${millis}`;
  return `${year}-${pad2(month)}-${pad2(day)}T${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${ms3}Z`;
}

/** 9999-12-31T23:59:59.999Z, the last instant toWire writes as ISO text. */
const LAST_MS = 253_402_300_799_999;

/**
 * A one-member object named with a $, its parts from `first` (its value's from `valueAt`): a tag. A $date
 * becomes toWire's text; $numberLong, $numberDouble and $oid stay as they are; another name is an object.
 */
function tagged(first: number, key: string, valueAt: number): void {
  const item = parts[valueAt]!;
  const single = parts.length === valueAt + 1;
  switch (key) {
    case '"$date"': {
      const c = item.charCodeAt(0);
      if (!single || (c !== 0x2d && (c < 0x30 || c > 0x39))) throw UNSURE;
      const ms = Number(item);
      parts.length = first;
      // Years 1970-9999: toWire's ISO text, which needs no escaping.
      if (ms >= 0 && ms <= LAST_MS && Number.isInteger(ms)) parts.push(`{"$date":"${isoText(ms)}"}`);
      else parts.push(JSON.stringify(dateToWire(new Date(ms))));
      return;
    }
    case '"$numberLong"':
    case '"$numberDouble"':
    case '"$oid"':
      // The walk leaves a tag's value as parsed: only a string is surely written the same.
      if (!single || item.charCodeAt(0) !== QUOTE) throw UNSURE;
      parts.push('}');
      return;
    default:
      parts.push('}');
  }
}
