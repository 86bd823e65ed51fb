// Seals secrets (push credentials and the like) for storage: AES-256-GCM under a key derived from the master secret.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { pushErrors } from './errors.js';

// The version names the algorithm and layout, so a later format can be read next to this one.
const VERSION = 'pb1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
// A fixed salt is fine for HKDF when the input is already a high-entropy secret; it separates our uses.
const HKDF_SALT = 'playbase/secret-box';
const MIN_MASTER_SECRET_LENGTH = 16;

/** Derives a 32-byte key for one purpose ("push-credentials"...) from the master secret (HKDF-SHA256). */
export function deriveKey(masterSecret: string, purpose: string): Buffer {
  if (masterSecret.length < MIN_MASTER_SECRET_LENGTH) {
    throw new Error(`The secret master key must be at least ${MIN_MASTER_SECRET_LENGTH} characters long`);
  }
  if (purpose === '') throw new Error('deriveKey needs a purpose');
  return Buffer.from(hkdfSync('sha256', masterSecret, HKDF_SALT, purpose, KEY_BYTES));
}

/**
 * Encrypts `plaintext` as `pb1.<iv>.<ciphertext>.<tag>` (base64url parts). `associatedData` (the game's apiKey,
 * say) is authenticated but not stored: the sealed value then opens only with the same associated data.
 */
export function sealSecret(plaintext: string, key: Buffer, associatedData = ''): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData(associatedData));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv, ciphertext, tag]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/** Decrypts a value from sealSecret; throws SECRET_UNREADABLE when it is malformed, altered or sealed under another key. */
export function openSecret(sealed: string, key: Buffer, associatedData = ''): string {
  checkKey(key);
  const parts = sealed.split('.');
  const [version, iv, ciphertext, tag] = parts.map((p, i) => (i === 0 ? Buffer.from(p) : decodePart(p)));
  if (parts.length !== 4 || version?.toString() !== VERSION || !iv || !ciphertext || !tag) {
    throw pushErrors.secretUnreadable();
  }
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw pushErrors.secretUnreadable();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(additionalData(associatedData));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw pushErrors.secretUnreadable();
  }
}

function decodePart(part: string): Buffer | undefined {
  return /^[A-Za-z0-9_-]*$/.test(part) ? Buffer.from(part, 'base64url') : undefined;
}

// The version is authenticated too, so a value cannot be relabelled as another format.
function additionalData(associatedData: string): Buffer {
  return Buffer.from(`${VERSION}|${associatedData}`, 'utf8');
}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES)
    throw new Error(`A secret-box key must be ${KEY_BYTES} bytes (use deriveKey)`);
}
