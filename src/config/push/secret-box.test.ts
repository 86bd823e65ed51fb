import { describe, expect, it } from 'vitest';
import { PlaybaseError } from '../../errors.js';
import { deriveKey, openSecret, sealSecret } from './secret-box.js';

const MASTER = 'a-master-secret-of-enough-length-0123456789';
const key = deriveKey(MASTER, 'push-credentials');

function expectUnreadable(fn: () => unknown): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(PlaybaseError);
  expect((caught as PlaybaseError).code).toBe('SECRET_UNREADABLE');
  expect((caught as PlaybaseError).status).toBe(500);
}

describe('secret box', () => {
  it('seal then open → the plaintext, including non-ASCII text', () => {
    const plaintext = '{"keyPem":"-----BEGIN PRIVATE KEY-----\\n…"} ünïcode ✓';
    expect(openSecret(sealSecret(plaintext, key), key)).toBe(plaintext);
  });

  it('sealed value → versioned four-part format without the plaintext', () => {
    const sealed = sealSecret('top secret', key);
    const parts = sealed.split('.');
    expect(parts).toHaveLength(4);
    expect(parts[0]).toBe('pb1');
    expect(Buffer.from(parts[1]!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(parts[3]!, 'base64url')).toHaveLength(16);
    expect(sealed).not.toContain('top secret');
  });

  it('same plaintext sealed twice → different values (random IV)', () => {
    expect(sealSecret('same', key)).not.toBe(sealSecret('same', key));
  });

  it('any altered part → SECRET_UNREADABLE', () => {
    const sealed = sealSecret('payload to protect', key);
    const parts = sealed.split('.');
    for (const index of [1, 2, 3]) {
      const bytes = Buffer.from(parts[index]!, 'base64url');
      bytes[0] = bytes[0]! ^ 1;
      const altered = parts.map((p, i) => (i === index ? bytes.toString('base64url') : p)).join('.');
      expectUnreadable(() => openSecret(altered, key));
    }
    expectUnreadable(() => openSecret(sealed.replace(/^pb1/, 'pb2'), key));
    expectUnreadable(() => openSecret(`${sealed}.x`, key));
    expectUnreadable(() => openSecret('not sealed at all', key));
  });

  it('other key or other associated data → SECRET_UNREADABLE', () => {
    const sealed = sealSecret('bound', key, 'game-a');
    expect(openSecret(sealed, key, 'game-a')).toBe('bound');
    expectUnreadable(() => openSecret(sealed, key, 'game-b'));
    expectUnreadable(() => openSecret(sealed, deriveKey(MASTER, 'another-purpose'), 'game-a'));
  });

  it('deriveKey → 32 bytes, the same for the same inputs, different per purpose and per master secret', () => {
    expect(deriveKey(MASTER, 'x')).toHaveLength(32);
    expect(deriveKey(MASTER, 'x').equals(deriveKey(MASTER, 'x'))).toBe(true);
    expect(deriveKey(MASTER, 'x').equals(deriveKey(MASTER, 'y'))).toBe(false);
    expect(deriveKey(`${MASTER}!`, 'x').equals(deriveKey(MASTER, 'x'))).toBe(false);
  });

  it('short master secret or wrong key size → refused', () => {
    expect(() => deriveKey('short', 'x')).toThrow(/at least 16/);
    expect(() => sealSecret('x', Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
