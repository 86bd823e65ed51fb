import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPushTokenCache, type PushTokenCache } from '../../config/push/push-types.js';
import { type FcmSendOptions, type ServiceAccount, sendFcm } from './fcm.js';
import {
  createLoopbackTls,
  type FcmPeer,
  findClosedPort,
  type LoopbackTls,
  startFcmPeer,
  startSilentPeer,
} from './test-peers.test-util.js';

const GOOD = 'good-registration-token';
const UNREGISTERED = 'unregistered-registration-token';

let tls: LoopbackTls;
let account: ServiceAccount;
let peer: FcmPeer;
let now: number;
let cache: PushTokenCache;

function rsaPem(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

beforeAll(async () => {
  tls = createLoopbackTls();
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  account = {
    project_id: 'p',
    client_email: 'pusher@p.iam.gserviceaccount.com',
    private_key: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    private_key_id: 'kid-1',
  };
  peer = await startFcmPeer({
    tls,
    publicKey: pair.publicKey,
    clientEmail: account.client_email,
    projectId: 'p',
    goodDeviceToken: GOOD,
    unregisteredDeviceToken: UNREGISTERED,
  });
});

afterAll(async () => {
  await peer.close();
});

beforeEach(() => {
  now = Date.UTC(2030, 0, 1);
  cache = createPushTokenCache();
  peer.arrivals.length = 0;
  peer.tokenRequests.length = 0;
});

function options(overrides: Partial<FcmSendOptions> = {}): FcmSendOptions {
  return {
    baseUrl: peer.url,
    tokenUrl: peer.tokenUrl,
    serviceAccount: account,
    deviceToken: GOOD,
    payload: {
      title: 'Hello',
      subtitle: 'ignored',
      summary: 'Body text',
      messageId: 'm-1',
      customJson: { level: 3, tag: 'x' },
    },
    clock: () => now,
    ca: tls.cert,
    tokenCache: cache,
    ...overrides,
  };
}

describe('sendFcm against a loopback HTTPS peer', () => {
  it('good registration token → success summary; the peer checked the assertion and received the v1 message', async () => {
    const summary = await sendFcm(options());

    expect(summary).toMatchObject({ title: 'Google', error: false });
    expect(summary.resultParts).toEqual(['status: 200', 'name: projects/p/messages/1']);
    expect(peer.tokenRequests).toHaveLength(1);
    const claims = peer.tokenRequests[0]!;
    expect(claims.iat).toBe(now / 1000);
    expect(Number(claims.exp) - Number(claims.iat)).toBeLessThanOrEqual(3600);
    const arrival = peer.arrivals[0]!;
    expect(arrival.path).toBe('/v1/projects/p/messages:send');
    expect(arrival.accessToken).toBe('ya29.peer-1');
    expect(arrival.body).toEqual({
      message: {
        token: GOOD,
        notification: { title: 'Hello', body: 'Body text' },
        data: { level: '3', tag: 'x', messageId: 'm-1' },
      },
    });
    expect(summary.outgoingMessageParts).toContain(`POST ${peer.url}/v1/projects/p/messages:send`);
    expect(summary.outgoingMessageParts).toContain(`body: ${JSON.stringify(arrival.body)}`);
    expect(summary.outgoingMessageParts.join('\n')).not.toContain('ya29.');
  });

  it('invalid registration token → error summary with 400 INVALID_ARGUMENT and the field violation', async () => {
    const summary = await sendFcm(options({ deviceToken: 'nonsense' }));

    expect(summary.error).toBe(true);
    expect(summary.resultParts).toEqual([
      'status: 400',
      'error: INVALID_ARGUMENT: The registration token is not a valid FCM registration token',
      'errorCode: INVALID_ARGUMENT',
      'field message.token: The registration token is not a valid FCM registration token',
    ]);
  });

  it('unregistered registration token → error summary with 404 NOT_FOUND and errorCode UNREGISTERED', async () => {
    const summary = await sendFcm(options({ deviceToken: UNREGISTERED }));

    expect(summary.error).toBe(true);
    expect(summary.resultParts).toEqual([
      'status: 404',
      'error: NOT_FOUND: Requested entity was not found.',
      'errorCode: UNREGISTERED',
    ]);
  });

  it('two sends → one access token request; past the renewal point → a second one', async () => {
    await sendFcm(options());
    now += 50 * 60_000;
    await sendFcm(options({ deviceToken: UNREGISTERED }));
    expect(peer.tokenRequests).toHaveLength(1);
    expect(peer.arrivals.map((a) => a.accessToken)).toEqual(['ya29.peer-1', 'ya29.peer-1']);

    now += 6 * 60_000; // 56 min: inside the 5-minute margin before the 3599 s expiry
    const third = await sendFcm(options());
    expect(third.error).toBe(false);
    expect(peer.tokenRequests).toHaveLength(2);
    expect(peer.arrivals[2]!.accessToken).toBe('ya29.peer-2');
  });

  it('service account key the token endpoint does not know → error summary with the OAuth error, nothing sent', async () => {
    const summary = await sendFcm(options({ serviceAccount: { ...account, private_key: rsaPem() } }));

    expect(summary.error).toBe(true);
    expect(summary.resultParts).toEqual([
      'token status: 400',
      'error: invalid_grant',
      'error_description: Invalid JWT Signature.',
    ]);
    expect(summary.outgoingMessageParts[0]).toBe(`POST ${peer.tokenUrl}`);
    expect(peer.arrivals).toHaveLength(0);
  });

  it('private_key that is not a PEM key → error summary naming the key problem', async () => {
    const summary = await sendFcm(options({ serviceAccount: { ...account, private_key: 'nope' } }));

    expect(summary.error).toBe(true);
    expect(summary.resultParts).toEqual(['error: the service account private_key is not a readable PEM key']);
    expect(peer.tokenRequests).toHaveLength(0);
  });
});

describe('sendFcm failures without an answer', () => {
  it('nothing listening at the token URL → error summary, no throw', async () => {
    const port = await findClosedPort();
    const summary = await sendFcm(options({ tokenUrl: `https://127.0.0.1:${port}/token` }));

    expect(summary.error).toBe(true);
    expect(summary.resultParts[0]).toContain('ECONNREFUSED');
  });

  it('FCM peer that never answers → error summary once the timeout passes', async () => {
    const silent = await startSilentPeer();
    const started = performance.now();
    const summary = await sendFcm(options({ baseUrl: silent.url, timeoutMs: 300 }));
    const elapsed = performance.now() - started;
    await silent.close();

    expect(summary.error).toBe(true);
    expect(summary.resultParts).toEqual(['error: no answer within 300 ms']);
    expect(elapsed).toBeLessThan(2000);
    expect(peer.tokenRequests).toHaveLength(1);
  });

  it('plain http base URL → error summary, refused before any connection', async () => {
    const summary = await sendFcm(options({ baseUrl: 'http://127.0.0.1:9' }));

    expect(summary.error).toBe(true);
    expect(summary.resultParts).toEqual(['error: refusing a non-https URL: http://127.0.0.1:9']);
  });
});
