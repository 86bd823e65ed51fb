// Spark.sendRequest / sendRequestAs and SparkRequests.<Request>.Send / SendAs: a runtime request run in-process
// by its standard processing, as the original's Send did (without the request's and response's Cloud Code), for
// the execution's game and stage, as the player given. It runs in the execution's transaction: its writes are
// rolled back with a failed execution, and the script's later reads see them.
import { REQUEST_HANDLERS } from '../runtime/request-handlers.js';
import { runtimeEnv } from './host-runtime.js';
import type { Session } from './session.js';

/** The runtime requests API's requests (src/runtime/request-handlers.ts), with the @class of their answer. */
export const SENDABLE = REQUEST_HANDLERS;

/** The runtime requests API's body limit. */
const MAX_BODY = 256 * 1024;

export async function requestCall(session: Session, a: Record<string, unknown>): Promise<string> {
  const body = a.request;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new Error('a request is an object with its "@class", e.g. {"@class": ".LogEventRequest", ...}');
  if (JSON.stringify(body).length > MAX_BODY)
    throw new Error(`a request is at most ${MAX_BODY} bytes of JSON`);
  const { '@class': cls, ...fields } = body as Record<string, unknown>;
  const name = typeof cls === 'string' ? cls.replace(/^\./, '') : '';
  const known = Object.hasOwn(SENDABLE, name) ? SENDABLE[name] : undefined;
  if (!known)
    throw new Error(
      `no runtime request ${String(cls).slice(0, 100)} (one of ${Object.keys(SENDABLE).join(', ')})`,
    );
  const playerId = a.playerId;
  if (typeof playerId !== 'string' || playerId.length === 0 || playerId.length > 200)
    throw new Error('a request is sent as a player: a player id of 1 to 200 characters');
  const tx = await session.transaction();
  const input = { env: runtimeEnv(session, tx.pool), gs: session.gs, body: { ...fields, playerId } };
  const answer = await known.handler(input);
  const requestId = fields.requestId;
  return JSON.stringify({
    '@class': known.answer,
    ...answer,
    ...(requestId === undefined ? {} : { requestId }),
  });
}
