// What a route declares for the OpenAPI document besides the schemas Fastify validates and serializes with.
//
// Most routes need nothing from here: their `operationId`, TypeBox schemas and `examples` are the document.
// These cover the two cases where the document must say more than Fastify may enforce:
// - a body the handler reads and checks itself, answering its own error codes (a MongoDB filter, a runtime
//   request's fields): a validating schema would change those answers (Ajv coerces "5" into 5 and answers 400
//   VALIDATION_FAILED where the handler answers its own code), so the schema describes and Fastify accepts any;
// - an answer the handler writes itself (a JSON text built under a size limit, a file stream): a response
//   schema would never be used to serialize it, so it is given to the document only.
import type { FastifySchema } from 'fastify';
import { type TSchema, Type } from 'typebox';

/** An answer as the document shows it: a JSON schema, or schemas by media type (a file download). */
export type DocumentedAnswer =
  | TSchema
  | { description?: string; content: Record<string, { schema: TSchema }> };

export interface Documented {
  /**
   * The body the handler checks itself: described in the document, not validated by Fastify. 'none': a body
   * the handler ignores, shown as no body (NO_BODY).
   */
  body?: TSchema | 'none';
  /** Answers the handler writes itself, by status: described in the document, never used to serialize. */
  response?: Record<number, DocumentedAnswer>;
}

/**
 * Route `config` that gives the OpenAPI document a body or answers that Fastify does not see. Spread it into the
 * route's config: `config: { ...READ, ...documented({ body: FindBody }) }`.
 */
export function documented(d: Documented): {
  swaggerTransform: (input: { schema: FastifySchema; url: string }) => { schema: FastifySchema; url: string };
} {
  return {
    swaggerTransform: ({ schema, url }) => {
      const { body, ...rest } = schema;
      return {
        url,
        schema: {
          ...rest,
          ...(d.body === 'none' ? NO_BODY : { body: d.body ?? body }),
          ...(d.response ? { response: { ...(schema.response as object), ...d.response } } : {}),
        },
      };
    },
  };
}

/**
 * Marks a POST, PUT or PATCH that takes no body (publish, rotate a key...), so that the document says so on
 * purpose: the completeness test wants a request body schema on every other one.
 */
export const NO_BODY = { 'x-no-body': true } as const;

/** A list answer of `schema`: its example is a list of the item's example. */
export function listOf<T extends TSchema>(schema: T) {
  const examples = (schema as { examples?: unknown[] }).examples;
  return Type.Array(schema, examples ? { examples: [examples] } : {});
}
