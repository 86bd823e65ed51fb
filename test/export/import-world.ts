// Test world of the imports: a server with its own data folder, and games of the administrator that all have the
// same configuration (events, running totals, leaderboards, data types, a server credential).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { basic, startTestServer, storeKind, type TestServer } from '../harness.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
export type Json = any;
export type Headers = Record<string, string>;

const attribute = (shortCode: string, dataType: string, agg: string, defaultValue?: unknown) => ({
  name: shortCode,
  shortCode,
  dataType,
  defaultAggregationType: agg,
  ...(defaultValue === undefined ? {} : { defaultValue }),
});
const ref = (event: string, attr: string) => ({ '@ref': `/~events/${event}/~attributes/${attr}` });
const field = (rt: string, collector: string, sort: 'ASC' | 'DESC') => ({
  runningTotal: { '@ref': `/~runningTotals/${rt}` },
  collector,
  sort,
});

/** Races rank by time, laps by time in partitions of country, gains by points a day. */
export const IMPORT_CONFIG = {
  '~events': [
    {
      name: 'Race',
      shortCode: 'race',
      description: '',
      '~attributes': [attribute('TIME', 'number', 'MIN'), attribute('CAR', 'string', 'SUPPLEMENTAL', 'none')],
    },
    {
      name: 'Lap',
      shortCode: 'lap',
      description: '',
      '~attributes': [attribute('TIME', 'number', 'MIN'), attribute('COUNTRY', 'string', 'GROUPED', 'XX')],
    },
    { name: 'Gain', shortCode: 'gain', description: '', '~attributes': [attribute('PTS', 'int', 'SUM')] },
  ],
  '~runningTotals': [
    {
      shortCode: 'RACE_RT',
      name: 'Race',
      event: { '@ref': '/~events/race' },
      collectors: [
        { attribute: ref('race', 'TIME'), calculation: 'MIN' },
        { attribute: ref('race', 'CAR'), calculation: 'SUPPLEMENTAL' },
      ],
    },
    {
      shortCode: 'LAP_RT',
      name: 'Lap',
      event: { '@ref': '/~events/lap' },
      groupBy: [ref('lap', 'COUNTRY')],
      collectors: [{ attribute: ref('lap', 'TIME'), calculation: 'MIN' }],
    },
    {
      shortCode: 'GAIN_RT',
      name: 'Gain',
      event: { '@ref': '/~events/gain' },
      collectors: [{ attribute: ref('gain', 'PTS'), calculation: 'SUM' }],
    },
  ],
  '~leaderboards': [
    {
      shortCode: 'RACE',
      name: 'Race',
      fields: [field('RACE_RT', 'TIME', 'ASC'), field('RACE_RT', 'CAR', 'ASC')],
    },
    {
      shortCode: 'LAPS',
      name: 'Laps',
      fields: [field('LAP_RT', 'TIME', 'ASC')],
      partitions: [{ attribute: 'COUNTRY' }],
    },
    { shortCode: 'DAY', name: 'Day', fields: [field('GAIN_RT', 'PTS', 'DESC')], resetFrequency: 'DAILY' },
  ],
  '~indexedTypes': [
    {
      shortCode: 'Score',
      name: 'Scores',
      fields: [
        { name: 'player', type: 'string' },
        { name: 'points', type: 'number' },
      ],
    },
    { shortCode: 'Note', name: 'Notes', fields: [{ name: 'title', type: 'string' }] },
  ],
  '~credentials': [{ name: 'server' }],
};

export interface ImportWorld {
  server: TestServer;
  dataDir: string;
  call(method: string, url: string, headers: Headers, body?: unknown): Promise<LightMyRequestResponse>;
  /** A game of the administrator with IMPORT_CONFIG; its apiKey and the server credential's secret. */
  newGame(name: string): Promise<{ apiKey: string; secret: string }>;
  /** A JWT of the game: the administrator's, or (with `group`) a new collaborator's in that default group. */
  jwt(apiKey: string, group?: string, query?: string): Promise<Headers>;
  /** `POST /{stage}/restv2/game/{apiKey}/{kind}/import` with the body as given. */
  post(
    kind: 'mongo' | 'data',
    apiKey: string,
    as: Headers,
    body: Buffer | string | undefined,
    contentType?: string,
    stage?: 'live' | 'preview',
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

const PASSWORD = 'import-password-1';
let collaborators = 0;

export async function startImportWorld(env: Record<string, string> = {}): Promise<ImportWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-import-test-'));
  // The embedded store's own folder takes the export files; on PostgreSQL they go to a folder of their own.
  const exportsDir: Record<string, string> = storeKind === 'postgres' ? { PLAYBASE_DATA_DIR: dataDir } : {};
  const server = await startTestServer({ ...exportsDir, ...env });
  // The real time: export files' modification times and the server clock agree.
  server.now.value = Date.now();
  const admin = { authorization: server.adminBasic };
  const call = (method: string, url: string, headers: Headers, body?: unknown) =>
    server.app.inject({
      method: method as 'GET',
      url,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const must = async (res: Promise<LightMyRequestResponse>, what: string): Promise<Json> => {
    const r = await res;
    if (r.statusCode >= 300) throw new Error(`${what}: ${r.statusCode} ${r.body}`);
    return r.body ? r.json() : undefined;
  };
  return {
    server,
    dataDir,
    call,
    async newGame(name) {
      const { apiKey } = await must(call('POST', '/restv2/games', admin, { name }), 'game');
      await must(call('PUT', `/restv2/game/${apiKey}/config`, admin, IMPORT_CONFIG), 'config');
      const reset = `/restv2/game/${apiKey}/config/~credentials/server/resetSecret`;
      const { secret } = await must(call('POST', reset, admin), 'secret');
      return { apiKey, secret };
    },
    async jwt(apiKey, group, query = '') {
      let as: Headers = admin;
      if (group) {
        const username = `import${++collaborators}-${process.pid}@import.test`;
        await must(
          call('POST', '/restv2/auth/users', admin, { username, password: PASSWORD, country: 'GB' }),
          'user',
        );
        const body = { email: username, groupNames: [group] };
        await must(call('POST', `/restv2/auth/game/${apiKey}/collaborators`, admin, body), 'collaborator');
        as = { authorization: basic(username, PASSWORD) };
      }
      const body = await must(call('GET', `/restv2/auth/game/${apiKey}/jwt${query}`, as), 'jwt');
      return { 'x-svc-jwt': body['X-SVC-JWT'] };
    },
    post: (kind, apiKey, as, body, contentType, stage = 'preview') =>
      server.app.inject({
        method: 'POST',
        url: `/${stage}/restv2/game/${apiKey}/${kind}/import`,
        headers: contentType === undefined ? as : { ...as, 'content-type': contentType },
        ...(body === undefined ? {} : { payload: body }),
      }),
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
