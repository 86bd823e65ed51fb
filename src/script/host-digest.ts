// Spark.getDigester(): hashes and HMACs of UTF-8 text, computed by node:crypto on the event loop (the sandbox has
// no crypto of its own). Inputs are capped so one call costs little.
import { createHash, createHmac } from 'node:crypto';
import type { Session } from './session.js';

export const DIGEST_ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha384', 'sha512'] as const;
const MAX_INPUT = 1024 * 1024;

function text(v: unknown, what: string): string {
  const s = typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
  if (s.length > MAX_INPUT) throw new Error(`a digest's ${what} is at most ${MAX_INPUT} characters`);
  return s;
}

export async function digestCall(_session: Session, a: Record<string, unknown>): Promise<string> {
  const alg = String(a.alg);
  if (!(DIGEST_ALGORITHMS as readonly string[]).includes(alg))
    throw new Error(`no digest ${alg.slice(0, 20)}`);
  const encoding = a.encoding === 'base64' ? 'base64' : 'hex';
  const value = text(a.value, 'input');
  const digest = a.hmac
    ? createHmac(alg, text(a.key, 'key')).update(value, 'utf8').digest(encoding)
    : createHash(alg).update(value, 'utf8').digest(encoding);
  return JSON.stringify(digest);
}
