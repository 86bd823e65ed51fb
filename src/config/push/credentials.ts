// A game's push credentials: their shape, their validation, and their sealed form for the game configuration.
import { createPrivateKey } from 'node:crypto';
import { pushErrors } from './errors.js';
import { isObject, type ServiceAccount } from './push-types.js';
import { openSecret, sealSecret } from './secret-box.js';

/** APNs token-based authentication: one .p8 key serves both the development and production environments. */
export interface ApnsCredentials {
  keyPem: string;
  keyId: string;
  teamId: string;
  topic: string;
}

export interface FcmCredentials {
  serviceAccount: ServiceAccount;
}

export interface PushCredentials {
  apple?: ApnsCredentials | undefined;
  google?: FcmCredentials | undefined;
}

/** What may be shown about configured credentials: identifiers, never keys. */
export interface PushCredentialsView {
  apple?: { keyId: string; teamId: string; topic: string };
  google?: { projectId: string; clientEmail: string };
}

/**
 * Checks credentials as an admin gives them (the service account as the downloaded JSON object or its text) and
 * that each key is usable for its algorithm; throws PUSH_CREDENTIALS_INVALID otherwise.
 */
export function parsePushCredentials(input: unknown): PushCredentials {
  if (!isObject(input))
    throw pushErrors.pushCredentialsInvalid('expected an object with apple and/or google');
  const credentials: PushCredentials = {};
  if (input.apple !== undefined && input.apple !== null) credentials.apple = parseApple(input.apple);
  if (input.google !== undefined && input.google !== null) credentials.google = parseGoogle(input.google);
  return credentials;
}

/** Seals credentials for storage, bound to the game: a sealed value copied to another game does not open. */
export function sealPushCredentials(credentials: PushCredentials, key: Buffer, apiKey: string): string {
  return sealSecret(JSON.stringify(credentials), key, `push-credentials|${apiKey}`);
}

export function openPushCredentials(sealed: string, key: Buffer, apiKey: string): PushCredentials {
  return JSON.parse(openSecret(sealed, key, `push-credentials|${apiKey}`)) as PushCredentials;
}

export function describePushCredentials(credentials: PushCredentials): PushCredentialsView {
  const view: PushCredentialsView = {};
  const { apple, google } = credentials;
  if (apple) view.apple = { keyId: apple.keyId, teamId: apple.teamId, topic: apple.topic };
  if (google)
    view.google = {
      projectId: google.serviceAccount.project_id,
      clientEmail: google.serviceAccount.client_email,
    };
  return view;
}

function parseApple(input: unknown): ApnsCredentials {
  if (!isObject(input)) throw pushErrors.pushCredentialsInvalid('apple must be an object');
  const apple = {
    keyPem: requireString(input, 'keyPem', 'apple'),
    keyId: requireString(input, 'keyId', 'apple'),
    teamId: requireString(input, 'teamId', 'apple'),
    topic: requireString(input, 'topic', 'apple'),
  };
  requireKey(apple.keyPem, 'ec', 'apple.keyPem must be the .p8 EC P-256 key (PKCS#8 PEM)');
  return apple;
}

function parseGoogle(input: unknown): FcmCredentials {
  if (!isObject(input)) throw pushErrors.pushCredentialsInvalid('google must be an object');
  let raw = input.serviceAccount;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      throw pushErrors.pushCredentialsInvalid('google.serviceAccount is not valid JSON');
    }
  }
  if (!isObject(raw))
    throw pushErrors.pushCredentialsInvalid('google.serviceAccount must be the service account JSON');
  const where = 'google.serviceAccount';
  const serviceAccount: ServiceAccount = {
    project_id: requireString(raw, 'project_id', where),
    client_email: requireString(raw, 'client_email', where),
    private_key: requireString(raw, 'private_key', where),
  };
  if (typeof raw.private_key_id === 'string') serviceAccount.private_key_id = raw.private_key_id;
  requireKey(serviceAccount.private_key, 'rsa', `${where}.private_key must be an RSA private key (PEM)`);
  return { serviceAccount };
}

function requireKey(pem: string, type: 'ec' | 'rsa', message: string): void {
  try {
    const key = createPrivateKey(pem);
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (key.asymmetricKeyType === type && (type !== 'ec' || curve === 'prime256v1')) return;
  } catch {
    // reported below
  }
  throw pushErrors.pushCredentialsInvalid(message);
}

function requireString(record: Record<string, unknown>, field: string, where: string): string {
  const value = record[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw pushErrors.pushCredentialsInvalid(`${where}.${field} must be a non-empty string`);
  }
  return value;
}
