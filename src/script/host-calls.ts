// The host calls of the Spark API's later parts, by name (session.ts dispatches to them): each takes the
// execution's session (its game, stage and transaction) and the script's arguments, and answers JSON text.

import type { Nest } from './engine-pool.js';
import { dataCall } from './host-data.js';
import { digestCall } from './host-digest.js';
import { httpCall } from './host-http.js';
import { indexCall } from './host-indexes.js';
import { leaderboardCall } from './host-leaderboards.js';
import { requestCall } from './host-requests.js';
import type { Session } from './session.js';

export type HostCall = (
  session: Session,
  args: Record<string, unknown>,
  nest?: Nest,
) => Promise<string | undefined>;

export const HOST_CALLS: Readonly<Record<string, HostCall>> = {
  data: dataCall,
  leaderboard: leaderboardCall,
  index: indexCall,
  digest: digestCall,
  request: requestCall,
  http: httpCall,
};
