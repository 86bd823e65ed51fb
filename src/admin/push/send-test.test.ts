import { generateKeyPairSync } from 'node:crypto';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushCredentials } from '../../config/push/credentials.js';
import { createPushTokenCache } from '../../config/push/push-types.js';
import { PlaybaseError } from '../../errors.js';
import { type PushSettings, pushTestAnswerSchema, sendTestPush } from './send-test.js';
import {
  type ApnsPeer,
  createLoopbackTls,
  type FcmPeer,
  startApnsPeer,
  startFcmPeer,
} from './test-peers.test-util.js';

const APNS_TOKEN = 'c'.repeat(64);
const FCM_TOKEN = 'fcm-good-token';
const clock = () => Date.UTC(2030, 0, 1);

let devPeer: ApnsPeer;
let prodPeer: ApnsPeer;
let fcmPeer: FcmPeer;
let settings: PushSettings;
let credentials: PushCredentials;

beforeAll(async () => {
  const tls = createLoopbackTls();
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const apple = {
    keyPem: ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    keyId: 'KEY1234567',
    teamId: 'TEAM123456',
    topic: 'com.example.game',
  };
  const apnsPeer = () =>
    startApnsPeer({ tls, publicKey: ec.publicKey, ...apple, goodDeviceToken: APNS_TOKEN, clock });
  devPeer = await apnsPeer();
  prodPeer = await apnsPeer();
  fcmPeer = await startFcmPeer({
    tls,
    publicKey: rsa.publicKey,
    clientEmail: 'pusher@p.iam.gserviceaccount.com',
    projectId: 'p',
    goodDeviceToken: FCM_TOKEN,
    unregisteredDeviceToken: 'gone',
  });
  settings = {
    apnsDevelopmentUrl: devPeer.url,
    apnsProductionUrl: prodPeer.url,
    fcmUrl: fcmPeer.url,
    fcmTokenUrl: fcmPeer.tokenUrl,
    ca: tls.cert,
  };
  credentials = {
    apple,
    google: {
      serviceAccount: {
        project_id: 'p',
        client_email: 'pusher@p.iam.gserviceaccount.com',
        private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
    },
  };
});

afterAll(async () => {
  await Promise.all([devPeer.close(), prodPeer.close(), fcmPeer.close()]);
});

async function failure(promise: Promise<unknown>): Promise<PlaybaseError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlaybaseError);
  return err as PlaybaseError;
}

const send = (provider: string, body: unknown, creds: PushCredentials = credentials) =>
  sendTestPush({ provider, credentials: creds, body, settings, clock, tokenCache: createPushTokenCache() });

describe('sendTestPush', () => {
  it('apple/development and apple/production → each sent to its own configured APNs URL', async () => {
    const dev = await send('apple/development', { pushId: APNS_TOKEN, title: 'Dev' });
    const prod = await send('apple/production', { pushId: 'bad-token', title: 'Prod' });

    expect(Value.Check(pushTestAnswerSchema, dev)).toBe(true);
    expect(dev.summaries).toHaveLength(1);
    expect(dev.summaries[0]).toMatchObject({ title: 'Apple development', error: false });
    expect(prod.summaries[0]).toMatchObject({ title: 'Apple production', error: true });
    expect(prod.summaries[0]!.resultParts).toContain('reason: BadDeviceToken');
    expect(devPeer.arrivals.map((a) => a.path)).toEqual([`/3/device/${APNS_TOKEN}`]);
    expect(prodPeer.arrivals.map((a) => a.path)).toEqual(['/3/device/bad-token']);
  });

  it('google with customJson as JSON text → parsed, sent as string data, success summary', async () => {
    const answer = await send('google', {
      pushId: FCM_TOKEN,
      title: 'T',
      subtitle: '',
      summary: 'S',
      messageId: 'm-9',
      customJson: '{"reward":{"coins":5},"note":"hi"}',
    });

    expect(Value.Check(pushTestAnswerSchema, answer)).toBe(true);
    expect(answer.summaries[0]).toMatchObject({ title: 'Google', error: false });
    expect(fcmPeer.arrivals.at(-1)!.body.message!.data).toEqual({
      reward: '{"coins":5}',
      note: 'hi',
      messageId: 'm-9',
    });
  });

  it('unknown provider → 404 PUSH_UNKNOWN_PROVIDER', async () => {
    const err = await failure(send('windows', { pushId: 'x' }));
    expect([err.status, err.code]).toEqual([404, 'PUSH_UNKNOWN_PROVIDER']);
  });

  it('provider without credentials → 400 PUSH_NOT_CONFIGURED, nothing sent', async () => {
    const before = fcmPeer.arrivals.length + devPeer.arrivals.length;
    const google = await failure(send('google', { pushId: 'x' }, { apple: credentials.apple }));
    const apple = await failure(send('apple/development', { pushId: 'x' }, { google: credentials.google }));

    expect([google.status, google.code, apple.status, apple.code]).toEqual([
      400,
      'PUSH_NOT_CONFIGURED',
      400,
      'PUSH_NOT_CONFIGURED',
    ]);
    expect(fcmPeer.arrivals.length + devPeer.arrivals.length).toBe(before);
  });

  it('missing pushId, non-string title, customJson array or bad JSON → 400 VALIDATION_FAILED naming each field', async () => {
    const err = await failure(send('google', { title: 5, customJson: [1, 2] }));
    expect([err.status, err.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(err.details?.map((d) => d.field)).toEqual(['pushId', 'title', 'customJson']);

    const badJson = await failure(send('google', { pushId: 'x', customJson: '{oops' }));
    expect(badJson.details).toEqual([{ field: 'customJson', message: 'customJson is not valid JSON' }]);

    const notObject = await failure(send('google', 'pushId=x'));
    expect(notObject.code).toBe('VALIDATION_FAILED');
  });

  it('customJson over 4 KB → 400 VALIDATION_FAILED', async () => {
    const err = await failure(send('google', { pushId: 'x', customJson: { big: 'x'.repeat(5000) } }));
    expect(err.details?.[0]?.field).toBe('customJson');
  });
});
