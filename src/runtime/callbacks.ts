// Callback URLs: HTTP into a game's Cloud Code, as the original platform's. GET or POST
// {stageBaseUrl}/callback/{apiKey}/{credentialName}/{secret}[/{playerId}] runs callbacks/{credentialName} with the
// query and form fields as Spark.getData() (another body as REQUEST_BODY) and answers the scriptData as JSON, or
// the text the script set as RESPONSE_RAW. No login: the credential's secret is the key, checked before the body
// is read; the call counts against the game's runtime limit. A credential is a callback credential when the
// stage's configuration has a callbacks/ script of its name.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../errors.js';
import type { App } from '../route/app.js';
import { documented } from '../route/openapi.js';
import type { ScriptOutcome } from '../types/script-runner.js';
import { callbackData } from './callback-body.js';
import type { CredentialCache } from './credentials.js';
import { runtimeErrors } from './errors.js';
import type { RuntimeEnv } from './request-kit.js';

/** A callback's body, as the runtime requests': 256 KiB. */
const CALLBACK_BODY_LIMIT = 256 * 1024;

const API_KEY = /^[A-Za-z0-9_-]{1,128}$/;
const Params = Type.Object({
  apiKey: Type.String({ minLength: 1, maxLength: 128, pattern: API_KEY.source }),
  credential: Type.String({ minLength: 1, maxLength: 64 }),
  secret: Type.String({ minLength: 1, maxLength: 200 }),
});
const PlayerParams = Type.Object({ ...Params.properties, playerId: Type.String({ maxLength: 100 }) });
// For the document only: the route reads any body itself (Fastify is given no body schema to check).
const FormBody = Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
  description:
    'Form fields (application/x-www-form-urlencoded, or the text fields of multipart/form-data) join the query ' +
    'fields in Spark.getData(); any other body is Spark.getData().REQUEST_BODY, as text.',
  examples: [{ order: 'o-17', amount: '250' }],
});
const Answer = Type.Record(Type.String(), Type.Unknown(), {
  description:
    "The script's scriptData as JSON; text/plain when the script set RESPONSE_RAW (its value is the answer).",
  examples: [{ ok: true }],
});

interface CallbackParams {
  apiKey: string;
  credential: string;
  secret: string;
  playerId?: string;
}

function failed(env: RuntimeEnv, out: ScriptOutcome): Record<string, unknown> {
  const answer: Record<string, unknown> = {
    error: { SCRIPT: out.outcome === 'timeout' ? 'TIMEOUT' : 'ERROR' },
    scriptErrorId: out.errorId,
  };
  if (env.stage === 'preview' && out.failure) {
    answer.scriptErrorMessage = out.failure.message;
    if (out.failure.at) answer.scriptErrorAt = out.failure.at;
  }
  return answer;
}

/** Registers the callback routes of one stage (under its prefix, with the runtime API's limit class). */
export function registerCallbackRoutes(app: App, env: RuntimeEnv, credentials: CredentialCache): void {
  // The script reads any body: form fields, or the text of any other type. Only this scope's routes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT }, (_r, body, done) =>
    done(null, body),
  );

  // Before the body is read and before the limits layer counts the call: the script exists, the secret is right.
  const check = async (request: FastifyRequest) => {
    const { apiKey, credential, secret } = request.params as CallbackParams;
    // The path's schema is checked after this hook: an API key that cannot be one is refused here.
    if (!API_KEY.test(apiKey))
      throw errors.badRequest('The apiKey of a callback URL is letters, digits, - and _');
    const config = await env.configs.get(env.pool, apiKey, env.stage);
    if (!env.scripts || !config?.scripts.has(`callbacks/${credential}`))
      throw runtimeErrors.callbackNotFound(credential.slice(0, 64));
    const game = await credentials.resolve(env.pool, env.stage, `${apiKey}.${credential}`, secret);
    if (game !== apiKey) throw runtimeErrors.badCredential();
    request.runtimeGame = apiKey;
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const { apiKey, credential, playerId } = request.params as CallbackParams;
    const config = await env.configs.get(env.pool, apiKey, env.stage);
    const script = config?.scripts.get(`callbacks/${credential}`);
    if (!config || !script || !env.scripts) throw runtimeErrors.callbackNotFound(credential.slice(0, 64));
    const body = Buffer.isBuffer(request.body) ? request.body : undefined;
    const out = await env.scripts.run({
      gs: { game: apiKey, stage: env.stage },
      script,
      modules: config.modules,
      data: callbackData(request.query, body, request.headers['content-type']),
      playerId: playerId ? playerId : null,
      scriptData: {},
      errors: {},
    });
    if (out.outcome !== 'ok') return failed(env, out);
    const { scriptData, errors } = out;
    if (Object.keys(errors).length > 0)
      return Object.keys(scriptData).length > 0 ? { error: errors, scriptData } : { error: errors };
    if (Object.hasOwn(scriptData, 'RESPONSE_RAW')) {
      const raw = scriptData.RESPONSE_RAW;
      reply.type('text/plain; charset=utf-8');
      return typeof raw === 'string' ? raw : JSON.stringify(raw);
    }
    reply.type('application/json; charset=utf-8');
    return JSON.stringify(scriptData);
  };

  const describe = (withPlayer: boolean, method: string) => ({
    bodyLimit: CALLBACK_BODY_LIMIT,
    onRequest: check,
    config: documented({ ...(method === 'Post' ? { body: FormBody } : {}), response: { 200: Answer } }),
    schema: {
      tags: ['runtime'],
      operationId: `${env.stage}Callback${withPlayer ? 'AsPlayer' : ''}${method}`,
      summary: `Run the callbacks/ script of a credential${withPlayer ? ' as a player' : ''}; see docs/cloud-code.md`,
      params: withPlayer ? PlayerParams : Params,
    },
  });
  const base = '/callback/:apiKey/:credential/:secret';
  for (const [path, withPlayer] of [
    [base, false],
    [`${base}/:playerId`, true],
  ] as const) {
    app.get(path, describe(withPlayer, 'Get'), handle);
    app.post(path, describe(withPlayer, 'Post'), handle);
  }
}
