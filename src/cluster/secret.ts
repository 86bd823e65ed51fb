// The shared secret between the control servers and their clusters' nosql servers (PLAYBASE_CLUSTER_SECRET).
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** True when the header is `Bearer <secret>`; digests compared in constant time (equal lengths, always). */
export function holdsSecret(header: string | undefined, secret: string): boolean {
  const m = /^Bearer (\S+)$/.exec(header ?? '');
  return m !== null && timingSafeEqual(digest(m[1] as string), digest(secret));
}
