// Spark.sendRequest / sendRequestAs and SparkRequests.<Request>.Send / SendAs: a runtime request run in-process
// by its standard processing, as the original's Send did (without the request's and response's Cloud Code), for
// the execution's game and stage, as the player given. It runs in the execution's transaction: its writes are
// rolled back with a failed execution, and the script's later reads see them.
// Execute / ExecuteAs run the request with its scripts (runtime/scripted.ts, as a client's request), each one
// nested in this host call: on the calling script's thread and budget, in a savepoint of its transaction.
import { REQUEST_HANDLERS } from '../runtime/request-handlers.js';
import { runScripted } from '../runtime/scripted.js';
import type { ScriptRunner } from '../types/script-runner.js';
import type { Nest } from './engine-pool.js';
import { runtimeEnv } from './host-runtime.js';
import type { Session } from './session.js';

/** How deep executions nest through Execute: the outermost script is depth 0. */
export const MAX_EXECUTE_DEPTH = 3;

/** The runtime requests API's requests (src/runtime/request-handlers.ts), with the @class of their answer. */
export const SENDABLE = REQUEST_HANDLERS;

/** The runtime requests API's body limit. */
const MAX_BODY = 256 * 1024;

export async function requestCall(
  session: Session,
  a: Record<string, unknown>,
  nest?: Nest,
): Promise<string> {
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
  const withScripts = a.scripts === true;
  if (withScripts && session.depth >= MAX_EXECUTE_DEPTH)
    throw new Error(
      `Execute: requests run with their scripts nest at most ${MAX_EXECUTE_DEPTH} deep (a script that executes a request whose scripts execute requests...): use Send for the innermost`,
    );
  const tx = await session.transaction();
  const input = { env: runtimeEnv(session, tx.pool), gs: session.gs, body: { ...fields, playerId } };
  const answer = withScripts
    ? await runScripted(
        input,
        nestedRunner(session, nest),
        { requestName: name, responseName: known.answer.slice(1) },
        known.handler,
      )
    : await known.handler(input);
  const requestId = fields.requestId;
  return JSON.stringify({
    '@class': known.answer,
    ...answer,
    ...(requestId === undefined ? {} : { requestId }),
  });
}

/** Runs each script of an executed request nested in the calling execution's host call. */
function nestedRunner(session: Session, nest: Nest | undefined): ScriptRunner {
  const nested = session.env.nested;
  if (!nest || !nested) throw new Error('Execute is not available here: use Send');
  return {
    run: (call) => nested(session, nest, call),
    warm: async () => {},
    close: async () => {},
  };
}
