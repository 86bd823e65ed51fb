// Which Ajv validates which part of a request (docs/decisions.md, "Strict JSON bodies").
//
// A querystring, path parameters and headers are strings on the wire, so their schemas coerce ("5" is 5,
// `?ids=a` is ["a"]). A JSON body has types of its own: a wrong type is the client's error and answers 400
// VALIDATION_FAILED naming the field, never a guess (null read as 0, "true" as true, a scalar as an array).
// Both compilers come from Fastify's own @fastify/ajv-compiler with the server's `ajv` options, so its defaults,
// formats and plugins, and the schemas added with addSchema, are the same for both; only coerceTypes differs.

import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

type SchemaController = NonNullable<FastifyServerOptions['schemaController']>;
/** The server's `ajv` option as Fastify passes it on: customOptions, plugins, onCreate. */
type AjvOptions = { customOptions?: object; [option: string]: unknown };
/** What Fastify hands a validator compiler (its typings in @fastify/ajv-compiler say otherwise). */
type RouteSchema = { schema: unknown; method: string; url: string; httpPart?: string };
type Compile = (route: RouteSchema) => unknown;
type FromPool = (externalSchemas: Parameters<BuildCompilerFromPool>[0], options: AjvOptions) => Compile;

/** The server's `ajv` option: the coercion of the strings of the URL and headers. */
export const AJV_OPTIONS = {
  customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false },
} as const;

/** The `schemaController` option: bodies strict, every other part with the server's options. */
export function strictBodySchemaController(): SchemaController {
  const fromPool = AjvCompiler() as unknown as FromPool;
  const buildValidator: FromPool = (externalSchemas, ajvOptions) => {
    const options: AjvOptions = ajvOptions ?? AJV_OPTIONS;
    const lenient = fromPool(externalSchemas, options);
    const strict = fromPool(externalSchemas, {
      ...options,
      customOptions: { ...options.customOptions, coerceTypes: false },
    });
    return (route) => (route.httpPart === 'body' ? strict(route) : lenient(route));
  };
  return { compilersFactory: { buildValidator: buildValidator as unknown as BuildCompilerFromPool } };
}
