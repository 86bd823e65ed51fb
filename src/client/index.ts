// The typed Playbase client (package export "playbase/client"): generated types, openapi-fetch, the auth flow.
export type { Client } from 'openapi-fetch';
export type { Session } from './credentials.js';
export { apiError, PlaybaseApiError, unwrap } from './errors.js';
export {
  createPlaybaseClient,
  type Endpoints,
  type PlaybaseClient,
  type PlaybaseClientOptions,
  type Stage,
  type StagePaths,
} from './playbase-client.js';
export type { components, operations, paths } from './schema.js';
