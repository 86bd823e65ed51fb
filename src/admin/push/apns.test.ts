import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPushTokenCache, type PushTokenCache } from '../../config/push/push-types.js';
import { type ApnsSendOptions, buildApnsBody, sendApns } from './apns.js';
import {
  type ApnsPeer,
  createLoopbackTls,
  findClosedPort,
  type LoopbackTls,
  startApnsPeer,
  startSilentPeer,
} from './test-peers.test-util.js';

const GOOD = 'a'.repeat(64);
const BAD = 'b'.repeat(64);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let tls: LoopbackTls;
let keyPem: string;
let publicKey: KeyObject;
let peer: ApnsPeer;
let now: number;
let cache: PushTokenCache;

beforeAll(async () => {
  tls = createLoopbackTls();
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  keyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  publicKey = pair.publicKey;
  peer = await startApnsPeer({
    tls,
    publicKey,
    keyId: 'KEY1234567',
    teamId: 'TEAM123456',
    topic: 'com.example.game',
    goodDeviceToken: GOOD,
    clock: () => now,
  });
});

afterAll(async () => {
  await peer.close();
});

beforeEach(() => {
  now = Date.UTC(2030, 0, 1);
  cache = createPushTokenCache();
  peer.arrivals.length = 0;
  peer.refuseTokens = false;
});

function options(overrides: Partial<ApnsSendOptions> = {}): ApnsSendOptions {
  return {
    baseUrl: peer.url,
    keyPem,
    keyId: 'KEY1234567',
    teamId: 'TEAM123456',
    topic: 'com.example.game',
    deviceToken: GOOD,
    payload: { title: 'Hello', subtitle: 'Sub', summary: 'Body text', customJson: { level: 3 } },
    clock: () => now,
    environment: 'development',
    ca: tls.cert,
    tokenCache: cache,
    ...overrides,
  };
}

describe('sendApns against a loopback HTTP/2 peer', () => {
  it('good device token → success summary, and the peer received a valid ES256 token, headers and payload', async () => {
    const summary = await sendApns(options());

    expect(summary.title).toBe('Apple development');
    expect(summary.error).toBe(false);
    const arrival = peer.arrivals[0]!;
    expect(peer.arrivals).toHaveLength(1);
    expect(arrival.path).toBe(`/3/device/${GOOD}`);
    expect(arrival.iat).toBe(now / 1000);
    expect(arrival.headers['apns-topic']).toBe('com.example.game');
    expect(arrival.headers['apns-push-type']).toBe('alert');
    expect(arrival.headers['apns-priority']).toBe('10');
    expect(JSON.parse(arrival.body)).toEqual({
      level: 3,
      aps: { alert: { title: 'Hello', subtitle: 'Sub', body: 'Body text' } },
    });
    const apnsId = String(arrival.headers['apns-id']);
    expect(apnsId).toMatch(UUID);
    expect(summary.resultParts).toEqual(['status: 200', `apns-id: ${apnsId}`]);
    expect(summary.outgoingMessageParts).toContain(`POST ${peer.url}/3/device/${GOOD}`);
    expect(summary.outgoingMessageParts).toContain(`apns-id: ${apnsId}`);
    expect(summary.outgoingMessageParts).toContain(`body: ${arrival.body}`);
    expect(summary.outgoingMessageParts.join('\n')).not.toContain(arrival.providerToken);
  });

  it('invalid device token → error summary with the status and reason the peer gave', async () => {
    const summary = await sendApns(options({ deviceToken: BAD, environment: 'production' }));

    expect(summary.title).toBe('Apple production');
    expect(summary.error).toBe(true);
    expect(summary.resultParts[0]).toBe('status: 400');
    expect(summary.resultParts).toContain('reason: BadDeviceToken');
    expect(peer.arrivals).toHaveLength(1);
  });

  it('UUID messageId → used as apns-id; other messageId → a generated UUID', async () => {
    const uuid = '123e4567-e89b-12d3-a456-426614174000';
    await sendApns(options({ payload: { title: 't', messageId: uuid } }));
    await sendApns(options({ payload: { title: 't', messageId: 'not-a-uuid' } }));

    expect(peer.arrivals[0]!.headers['apns-id']).toBe(uuid);
    expect(String(peer.arrivals[1]!.headers['apns-id'])).toMatch(UUID);
  });

  it('two sends 49 minutes apart → one provider token reused; 51 minutes → a fresh token', async () => {
    await sendApns(options());
    now += 49 * 60_000;
    await sendApns(options({ deviceToken: BAD }));
    now += 2 * 60_000;
    const third = await sendApns(options());

    expect(third.error).toBe(false);
    const [first, second, renewed] = peer.arrivals;
    expect(second!.providerToken).toBe(first!.providerToken);
    expect(renewed!.providerToken).not.toBe(first!.providerToken);
    expect(renewed!.iat).toBe(now / 1000);
  });

  it('provider token refused with 403 → reported, and the next send signs a new token', async () => {
    await sendApns(options());
    peer.refuseTokens = true;
    const refused = await sendApns(options());
    peer.refuseTokens = false;
    await sendApns(options());

    expect(refused.error).toBe(true);
    expect(refused.resultParts).toEqual(
      expect.arrayContaining(['status: 403', 'reason: InvalidProviderToken']),
    );
    expect(peer.arrivals).toHaveLength(2);
    expect(peer.arrivals[1]!.providerToken).not.toBe(peer.arrivals[0]!.providerToken);
  });

  it('custom aps keys → merged under aps, the alert from the request wins', () => {
    const body = buildApnsBody({ title: 'T', customJson: { aps: { badge: 2, alert: 'x' }, k: 'v' } });
    expect(body).toEqual({ k: 'v', aps: { badge: 2, alert: { title: 'T' } } });
  });
});

describe('sendApns failures without an answer', () => {
  it('peer certificate not trusted (no ca) → error summary, nothing delivered', async () => {
    const summary = await sendApns(options({ ca: undefined }));

    expect(summary.error).toBe(true);
    expect(summary.resultParts[0]).toMatch(/^error: .*(self[- ]signed|certificate)/i);
    expect(peer.arrivals).toHaveLength(0);
  });

  it('nothing listening → error summary, no throw', async () => {
    const port = await findClosedPort();
    const summary = await sendApns(options({ baseUrl: `https://127.0.0.1:${port}` }));

    expect(summary.error).toBe(true);
    expect(summary.resultParts[0]).toContain('ECONNREFUSED');
  });

  it('peer that never answers → error summary once the timeout passes', async () => {
    const silent = await startSilentPeer();
    const started = performance.now();
    const summary = await sendApns(options({ baseUrl: silent.url, timeoutMs: 300 }));
    const elapsed = performance.now() - started;
    await silent.close();

    expect(summary.error).toBe(true);
    expect(summary.resultParts).toEqual(['error: no answer within 300 ms']);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2000);
  });

  it('token key that is not a PEM key → error summary naming the key problem', async () => {
    const summary = await sendApns(options({ keyPem: 'not a key' }));

    expect(summary.error).toBe(true);
    expect(summary.resultParts[0]).toContain('not a readable PKCS#8 PEM key');
    expect(peer.arrivals).toHaveLength(0);
  });

  it('token key on another curve → error summary, nothing delivered', async () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    const summary = await sendApns(
      options({ keyPem: p384.export({ type: 'pkcs8', format: 'pem' }).toString() }),
    );

    expect(summary.error).toBe(true);
    expect(peer.arrivals).toHaveLength(0);
  });
});
