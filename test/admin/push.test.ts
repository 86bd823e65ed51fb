// Push notification tests through the server, against real HTTP/2 (APNs) and HTTPS (FCM) peers on loopback.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApnsPeer,
  createLoopbackTls,
  type FcmPeer,
  startApnsPeer,
  startFcmPeer,
} from '../../src/admin/push/test-peers.test-util.js';
import { startWorld, type World } from './world.js';

const APNS_TOKEN = 'a'.repeat(64);
const FCM_TOKEN = 'fcm-device-ok';
let w: World;
let devPeer: ApnsPeer;
let prodPeer: ApnsPeer;
let fcmPeer: FcmPeer;
let dir: string;
let test: string;

beforeAll(async () => {
  const tls = createLoopbackTls();
  dir = mkdtempSync(join(tmpdir(), 'playbase-push-route-'));
  writeFileSync(join(dir, 'ca.pem'), tls.cert);
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const apple = {
    keyPem: ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    keyId: 'KEY1234567',
    teamId: 'TEAM123456',
    topic: 'com.example.game',
  };
  // The peers judge token age by the server's clock, which the tests control.
  const clock = () => w.server.now.value;
  const apns = () =>
    startApnsPeer({ tls, publicKey: ec.publicKey, ...apple, goodDeviceToken: APNS_TOKEN, clock });
  [devPeer, prodPeer] = [await apns(), await apns()];
  fcmPeer = await startFcmPeer({
    tls,
    publicKey: rsa.publicKey,
    clientEmail: 'pusher@game.iam.gserviceaccount.com',
    projectId: 'game',
    goodDeviceToken: FCM_TOKEN,
    unregisteredDeviceToken: 'fcm-device-gone',
  });
  w = await startWorld(
    {
      PLAYBASE_APNS_DEVELOPMENT_URL: devPeer.url,
      PLAYBASE_APNS_PRODUCTION_URL: prodPeer.url,
      PLAYBASE_FCM_URL: fcmPeer.url,
      PLAYBASE_FCM_TOKEN_URL: fcmPeer.tokenUrl,
      PLAYBASE_PUSH_CA_FILE: join(dir, 'ca.pem'),
      // The FCM peer checks assertion lifetimes against the real time, as Google does.
    },
    Date.now(),
  );
  const serviceAccount = {
    project_id: 'game',
    client_email: 'pusher@game.iam.gserviceaccount.com',
    private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  const saved = await w.call('PUT', `/restv2/game/${w.apiKey}/config/~pushCredentials`, w.owner, {
    apple,
    google: { serviceAccount },
  });
  expect(saved.statusCode).toBe(200);
  test = `/restv2/game/${w.apiKey}/admin/pushNotifications/test`;
}, 30_000);

afterAll(async () => {
  await Promise.all([w?.server.close(), devPeer?.close(), prodPeer?.close(), fcmPeer?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

interface Summary {
  title: string;
  error: boolean;
  outgoingMessageParts: string[];
  resultParts: string[];
}

async function push(provider: string, body: unknown): Promise<Summary> {
  const res = await w.call('POST', `${test}/${provider}`, w.owner, body);
  expect(res.statusCode, res.body).toBe(200);
  const { summaries } = res.json();
  expect(summaries).toHaveLength(1);
  return summaries[0];
}

describe('push notification test', () => {
  it('apple/development, good device token → delivered by the sandbox peer, success summary', async () => {
    const summary = await push('apple/development', { pushId: APNS_TOKEN, title: 'Hi', summary: 'Body' });
    expect(summary).toMatchObject({ title: 'Apple development', error: false });
    expect(summary.resultParts).toContain('status: 200');
    expect(summary.outgoingMessageParts[0]).toBe(`POST ${devPeer.url}/3/device/${APNS_TOKEN}`);
    const arrived = devPeer.arrivals.at(-1);
    expect(JSON.parse(arrived?.body ?? '{}').aps.alert).toEqual({ title: 'Hi', body: 'Body' });
    expect(prodPeer.arrivals).toHaveLength(0);
  });

  it('apple/production, invalid device token → the peer answers 400 BadDeviceToken, reported as an error', async () => {
    const summary = await push('apple/production', { pushId: 'not-a-device', title: 'Hi' });
    expect(summary).toMatchObject({ title: 'Apple production', error: true });
    expect(summary.resultParts).toEqual(expect.arrayContaining(['status: 400', 'reason: BadDeviceToken']));
    expect(prodPeer.arrivals.at(-1)?.path).toBe('/3/device/not-a-device');
  });

  it('google, good token → OAuth token then messages:send; success summary names the message', async () => {
    const summary = await push('google', { pushId: FCM_TOKEN, title: 'T', customJson: { coins: 5 } });
    expect(summary).toMatchObject({ title: 'Google', error: false });
    expect(summary.resultParts).toEqual(['status: 200', 'name: projects/game/messages/1']);
    expect(fcmPeer.tokenRequests.length).toBeGreaterThan(0);
    expect(fcmPeer.arrivals.at(-1)?.body.message?.data).toEqual({ coins: '5' });
  });

  it('google, unregistered and malformed tokens → 404 UNREGISTERED and 400 INVALID_ARGUMENT summaries', async () => {
    const gone = await push('google', { pushId: 'fcm-device-gone' });
    expect(gone.error).toBe(true);
    expect(gone.resultParts).toEqual(expect.arrayContaining(['status: 404', 'errorCode: UNREGISTERED']));
    const bad = await push('google', { pushId: 'junk' });
    expect(bad.resultParts).toEqual(expect.arrayContaining(['status: 400', 'errorCode: INVALID_ARGUMENT']));
  });

  it('the answer never carries a key or a provider token', async () => {
    const summary = await push('apple/development', { pushId: APNS_TOKEN });
    const text = JSON.stringify(summary);
    expect(text).not.toContain(devPeer.arrivals.at(-1)?.providerToken ?? 'missing');
    expect(text).not.toContain('PRIVATE KEY');
  });

  it('unknown provider → 404 PUSH_UNKNOWN_PROVIDER; nothing sent', async () => {
    const sent = devPeer.arrivals.length + prodPeer.arrivals.length + fcmPeer.arrivals.length;
    const one = await w.call('POST', `${test}/windows`, w.owner, { pushId: 'x' });
    const two = await w.call('POST', `${test}/apple/staging`, w.owner, { pushId: 'x' });
    expect([one.statusCode, one.json().code, two.statusCode, two.json().code]).toEqual([
      404,
      'PUSH_UNKNOWN_PROVIDER',
      404,
      'PUSH_UNKNOWN_PROVIDER',
    ]);
    expect(devPeer.arrivals.length + prodPeer.arrivals.length + fcmPeer.arrivals.length).toBe(sent);
  });

  it('missing pushId, oversized customJson → 400 VALIDATION_FAILED; a game without credentials → 400', async () => {
    const missing = await w.call('POST', `${test}/google`, w.owner, { title: 'x' });
    expect([missing.statusCode, missing.json().code]).toEqual([400, 'VALIDATION_FAILED']);
    const big = await w.call('POST', `${test}/google`, w.owner, {
      pushId: 'x',
      customJson: { a: 'x'.repeat(5000) },
    });
    expect([big.statusCode, big.json().details[0].field]).toEqual([400, 'customJson']);
    const none = await w.call(
      'POST',
      `/restv2/game/${w.otherApiKey}/admin/pushNotifications/test/google`,
      w.owner,
      { pushId: 'x' },
    );
    expect([none.statusCode, none.json().code]).toEqual([400, 'PUSH_NOT_CONFIGURED']);
  });

  it('ReadOnly → 403; JWT of another game → 403; expired token → 401', async () => {
    const body = { pushId: APNS_TOKEN };
    const reader = await w.call('POST', `${test}/apple/development`, w.readOnly, body);
    const jwt = await w.call('POST', `${test}/google`, w.otherGameJwt, body);
    const expired = await w.call('POST', `${test}/google`, w.expired, body);
    expect([reader.statusCode, reader.json().code]).toEqual([403, 'PERMISSION_DENIED']);
    expect([jwt.statusCode, expired.statusCode]).toEqual([403, 401]);
  });

  it('a sent test → one audit entry (admin.post) naming the provider path', async () => {
    const res = await w.call('GET', `/restv2/game/${w.apiKey}/admin/audit?action=admin`, w.owner);
    const paths = res.json().entries.map((e: { path: string }) => e.path);
    expect(paths).toContain(`${test}/apple/production`);
  });
});
