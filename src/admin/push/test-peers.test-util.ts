// Loopback stand-ins for APNs and FCM used by the push tests: real TLS peers that check what arrives.
import { execFileSync } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer, type IncomingHttpHeaders } from 'node:http2';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';

export interface LoopbackTls {
  key: string;
  cert: string;
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl and valid for one day. */
export function createLoopbackTls(): LoopbackTls {
  const dir = mkdtempSync(join(tmpdir(), 'playbase-push-tls-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-days',
        '1',
        '-keyout',
        keyPath,
        '-out',
        certPath,
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ApnsArrival {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  providerToken: string;
  iat: number;
}

export interface ApnsPeer {
  url: string;
  arrivals: ApnsArrival[];
  /** When set, every provider token is refused with 403 InvalidProviderToken. */
  refuseTokens: boolean;
  close(): Promise<void>;
}

export interface ApnsPeerOptions {
  tls: LoopbackTls;
  publicKey: KeyObject;
  keyId: string;
  teamId: string;
  topic: string;
  goodDeviceToken: string;
  /** The peer's notion of now (ms), to judge token age as APNs does. */
  clock: () => number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An HTTP/2 APNs peer: 200 for the good device token, 400 BadDeviceToken for others, 403 for a bad provider token. */
export async function startApnsPeer(options: ApnsPeerOptions): Promise<ApnsPeer> {
  const server = createSecureServer({ key: options.tls.key, cert: options.tls.cert });
  const peer: ApnsPeer = { url: '', arrivals: [], refuseTokens: false, close: () => closeServer(server) };
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      answerApns(peer, options, headers, Buffer.concat(chunks).toString('utf8')).then(
        ({ status, body }) => {
          const apnsId = headers['apns-id'];
          stream.respond({ ':status': status, ...(typeof apnsId === 'string' ? { 'apns-id': apnsId } : {}) });
          stream.end(body);
        },
        () => stream.close(),
      );
    });
  });
  peer.url = `https://127.0.0.1:${await listen(server)}`;
  return peer;
}

async function answerApns(
  peer: ApnsPeer,
  options: ApnsPeerOptions,
  headers: IncomingHttpHeaders,
  body: string,
): Promise<{ status: number; body?: string }> {
  const refuse = (status: number, reason: string) => ({ status, body: JSON.stringify({ reason }) });
  const bearer = /^bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
  if (!bearer) return refuse(403, 'MissingProviderToken');
  let iat: number;
  try {
    const verified = await jwtVerify(bearer, options.publicKey, {
      algorithms: ['ES256'],
      issuer: options.teamId,
    });
    if (verified.protectedHeader.kid !== options.keyId) return refuse(403, 'InvalidProviderToken');
    iat = Number(verified.payload.iat);
  } catch {
    return refuse(403, 'InvalidProviderToken');
  }
  if (!(options.clock() / 1000 - iat < 3600)) return refuse(403, 'ExpiredProviderToken');
  if (peer.refuseTokens) return refuse(403, 'InvalidProviderToken');
  const path = String(headers[':path']);
  peer.arrivals.push({ path, headers, body, providerToken: bearer, iat });
  if (headers[':method'] !== 'POST') return refuse(405, 'MethodNotAllowed');
  if (headers['apns-topic'] !== options.topic) return refuse(400, 'BadTopic');
  if (headers['apns-push-type'] !== 'alert') return refuse(400, 'InvalidPushType');
  if (headers['apns-priority'] !== '10') return refuse(400, 'BadPriority');
  if (!UUID.test(String(headers['apns-id']))) return refuse(400, 'BadMessageId');
  let parsed: { aps?: { alert?: unknown } };
  try {
    parsed = JSON.parse(body);
  } catch {
    return refuse(400, 'PayloadEmpty');
  }
  if (typeof parsed.aps?.alert !== 'object') return refuse(400, 'PayloadEmpty');
  if (path !== `/3/device/${options.goodDeviceToken}`) return refuse(400, 'BadDeviceToken');
  return { status: 200 };
}

export interface FcmArrival {
  path: string;
  accessToken: string;
  body: { message?: Record<string, unknown> };
}

export interface FcmPeer {
  url: string;
  tokenUrl: string;
  /** Assertion claims of every token request that passed the checks. */
  tokenRequests: Record<string, unknown>[];
  arrivals: FcmArrival[];
  close(): Promise<void>;
}

export interface FcmPeerOptions {
  tls: LoopbackTls;
  publicKey: KeyObject;
  clientEmail: string;
  projectId: string;
  goodDeviceToken: string;
  /** Answered 404 UNREGISTERED; any other unknown token gets 400 INVALID_ARGUMENT. */
  unregisteredDeviceToken: string;
}

/** An HTTPS peer for both the OAuth token endpoint (/token) and FCM messages:send. */
export async function startFcmPeer(options: FcmPeerOptions): Promise<FcmPeer> {
  const issued = new Set<string>();
  const server = createHttpsServer({ key: options.tls.key, cert: options.tls.cert });
  const peer: FcmPeer = {
    url: '',
    tokenUrl: '',
    tokenRequests: [],
    arrivals: [],
    close: () => closeServer(server),
  };
  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer =
        req.url === '/token'
          ? answerToken(peer, options, issued, String(req.headers['content-type']), body)
          : Promise.resolve(answerSend(peer, options, issued, req.url ?? '', req.headers, body));
      answer.then(({ status, json }) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      });
    });
  });
  const port = await listen(server);
  peer.url = `https://127.0.0.1:${port}`;
  peer.tokenUrl = `${peer.url}/token`;
  return peer;
}

interface JsonAnswer {
  status: number;
  json: unknown;
}

async function answerToken(
  peer: FcmPeer,
  options: FcmPeerOptions,
  issued: Set<string>,
  contentType: string,
  body: string,
): Promise<JsonAnswer> {
  const refuse = (error: string, description: string) => ({
    status: 400,
    json: { error, error_description: description },
  });
  if (contentType !== 'application/x-www-form-urlencoded')
    return refuse('invalid_request', 'bad content type');
  const form = new URLSearchParams(body);
  if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
    return refuse('unsupported_grant_type', 'Invalid grant_type');
  }
  try {
    const { payload } = await jwtVerify(form.get('assertion') ?? '', options.publicKey, {
      algorithms: ['RS256'],
      issuer: options.clientEmail,
      audience: peer.tokenUrl,
    });
    if (payload.scope !== 'https://www.googleapis.com/auth/firebase.messaging')
      return refuse('invalid_scope', 'scope');
    if (
      typeof payload.iat !== 'number' ||
      typeof payload.exp !== 'number' ||
      payload.exp - payload.iat > 3600
    ) {
      return refuse('invalid_grant', 'Invalid JWT: exp too far from iat');
    }
    peer.tokenRequests.push(payload);
  } catch {
    return refuse('invalid_grant', 'Invalid JWT Signature.');
  }
  const token = `ya29.peer-${peer.tokenRequests.length}`;
  issued.add(token);
  return { status: 200, json: { access_token: token, expires_in: 3599, token_type: 'Bearer' } };
}

function answerSend(
  peer: FcmPeer,
  options: FcmPeerOptions,
  issued: Set<string>,
  path: string,
  headers: IncomingHttpHeaders,
  body: string,
): JsonAnswer {
  const googleError = (code: number, status: string, message: string, details: unknown[]) => ({
    status: code,
    json: { error: { code, message, status, details } },
  });
  const accessToken = /^Bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1] ?? '';
  if (!issued.has(accessToken))
    return googleError(401, 'UNAUTHENTICATED', 'Request had invalid credentials.', []);
  if (path !== `/v1/projects/${options.projectId}/messages:send`)
    return googleError(404, 'NOT_FOUND', 'No such project', []);
  let parsed: FcmArrival['body'];
  try {
    parsed = JSON.parse(body);
  } catch {
    return googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.', []);
  }
  peer.arrivals.push({ path, accessToken, body: parsed });
  const data = parsed.message?.data;
  if (typeof data === 'object' && data !== null && Object.values(data).some((v) => typeof v !== 'string')) {
    return googleError(400, 'INVALID_ARGUMENT', 'Invalid value at message.data', []);
  }
  const token = parsed.message?.token;
  if (token === options.goodDeviceToken)
    return { status: 200, json: { name: `projects/${options.projectId}/messages/1` } };
  const fcmError = '@type';
  if (token === options.unregisteredDeviceToken) {
    return googleError(404, 'NOT_FOUND', 'Requested entity was not found.', [
      { [fcmError]: 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' },
    ]);
  }
  return googleError(
    400,
    'INVALID_ARGUMENT',
    'The registration token is not a valid FCM registration token',
    [
      { [fcmError]: 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'INVALID_ARGUMENT' },
      {
        [fcmError]: 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [
          {
            field: 'message.token',
            description: 'The registration token is not a valid FCM registration token',
          },
        ],
      },
    ],
  );
}

/** A TCP listener that accepts and never answers: a provider that hangs mid-handshake. */
export async function startSilentPeer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  const close = () => {
    for (const socket of sockets) socket.destroy();
    return closeServer(server);
  };
  return { url: `https://127.0.0.1:${port}`, close };
}

/** A loopback port that nothing listens on (bound, then released). */
export async function findClosedPort(): Promise<number> {
  const server = createNetServer();
  const port = await listen(server);
  await closeServer(server);
  return port;
}

function listen(server: NetServer | HttpsServer | Http2SecureServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: NetServer | HttpsServer | Http2SecureServer): Promise<void> {
  if ('closeAllConnections' in server) server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
