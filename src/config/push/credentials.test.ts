import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PlaybaseError } from '../../errors.js';
import {
  describePushCredentials,
  openPushCredentials,
  type PushCredentials,
  parsePushCredentials,
  sealPushCredentials,
} from './credentials.js';
import { deriveKey } from './secret-box.js';

const ecPem = (curve: string) =>
  generateKeyPairSync('ec', { namedCurve: curve })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const apple = {
  keyPem: ecPem('P-256'),
  keyId: 'KEY1234567',
  teamId: 'TEAM123456',
  topic: 'com.example.game',
};
const serviceAccount = {
  type: 'service_account',
  project_id: 'p',
  private_key_id: 'kid-1',
  private_key: rsaPem,
  client_email: 'pusher@p.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof PlaybaseError ? `${err.status} ${err.code}` : 'not a PlaybaseError';
  }
  return undefined;
}

describe('push credentials', () => {
  it('apple key and service account JSON text → parsed, keeping only the fields the senders use', () => {
    const parsed = parsePushCredentials({
      apple,
      google: { serviceAccount: JSON.stringify(serviceAccount) },
    });
    expect(parsed).toEqual({
      apple,
      google: {
        serviceAccount: {
          project_id: 'p',
          client_email: serviceAccount.client_email,
          private_key: rsaPem,
          private_key_id: 'kid-1',
        },
      },
    });
  });

  it('apple key on P-384, an RSA key for apple, an EC key for google, missing fields → 400 PUSH_CREDENTIALS_INVALID', () => {
    const invalid = '400 PUSH_CREDENTIALS_INVALID';
    expect(codeOf(() => parsePushCredentials({ apple: { ...apple, keyPem: ecPem('P-384') } }))).toBe(invalid);
    expect(codeOf(() => parsePushCredentials({ apple: { ...apple, keyPem: rsaPem } }))).toBe(invalid);
    expect(
      codeOf(() =>
        parsePushCredentials({
          google: { serviceAccount: { ...serviceAccount, private_key: apple.keyPem } },
        }),
      ),
    ).toBe(invalid);
    expect(codeOf(() => parsePushCredentials({ apple: { ...apple, topic: '' } }))).toBe(invalid);
    expect(codeOf(() => parsePushCredentials({ google: { serviceAccount: '{not json' } }))).toBe(invalid);
    expect(codeOf(() => parsePushCredentials('apple'))).toBe(invalid);
  });

  it('sealed credentials → open only for the same game', () => {
    const key = deriveKey('a-master-secret-of-enough-length', 'push-credentials');
    const credentials: PushCredentials = parsePushCredentials({ apple });
    const sealed = sealPushCredentials(credentials, key, 'game-a');

    expect(sealed).not.toContain('PRIVATE KEY');
    expect(openPushCredentials(sealed, key, 'game-a')).toEqual(credentials);
    expect(codeOf(() => openPushCredentials(sealed, key, 'game-b'))).toBe('500 SECRET_UNREADABLE');
  });

  it('described credentials → identifiers only, no key material', () => {
    const view = describePushCredentials(parsePushCredentials({ apple, google: { serviceAccount } }));
    expect(view).toEqual({
      apple: { keyId: 'KEY1234567', teamId: 'TEAM123456', topic: 'com.example.game' },
      google: { projectId: 'p', clientEmail: serviceAccount.client_email },
    });
  });
});
