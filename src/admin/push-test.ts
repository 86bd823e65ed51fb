// The push notification test as a service: the game's push credentials, one send to the provider, then the test's
// audit entry. The test writes nothing, so its entry is its own short transaction, recorded once the provider has
// answered (no transaction is held open across the network call); a refused test (4xx) records nothing.
import type pg from 'pg';
import type { RecordWrite } from '../config/config-audit.js';
import { loadPushCredentials } from '../config/push-config.js';
import { withTransaction } from '../store/db.js';
import { type PushSettings, type PushTestAnswer, sendTestPush } from './push/send-test.js';

export interface PushTestInput {
  provider: string;
  body: unknown;
  settings: PushSettings;
  /** PLAYBASE_SECRET_KEY: opens the sealed credentials. */
  secretKey: string | undefined;
  clock: () => number;
}

export async function runPushTest(
  pool: pg.Pool,
  apiKey: string,
  input: PushTestInput,
  audit?: RecordWrite,
): Promise<PushTestAnswer> {
  const answer = await sendTestPush({
    provider: input.provider,
    credentials: await loadPushCredentials(pool, apiKey, input.secretKey),
    body: input.body,
    settings: input.settings,
    clock: input.clock,
  });
  if (audit) await withTransaction(pool, (client) => audit(client, apiKey));
  return answer;
}
