// The LISTEN connection of the PostgreSQL store: one dedicated client, reconnected with backoff after a loss.
import pg from 'pg';
import type { Subscription } from './db.js';

export const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

// A restart of PostgreSQL takes seconds; many processes retrying on the same beat would all knock at once.
const RETRY_BASE_MS = 500;
const RETRY_CAP_MS = 30_000;

/**
 * The wait before reconnection attempt `attempt` (0 first): exponential from 0.5 s, capped at 30 s, with
 * "equal jitter" (a random point in the upper half) so processes that lost the database together spread out.
 */
export function reconnectDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** A dedicated PostgreSQL connection that LISTENs, reconnecting after a loss. */
export async function listenPostgres(
  config: pg.ClientConfig,
  channel: string,
  onNotify: (payload: string) => void,
  onGap: () => void,
): Promise<Subscription> {
  if (!CHANNEL_NAME.test(channel)) throw new Error(`Invalid channel name ${channel}`);
  let client: pg.Client | undefined;
  let live = false;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  function lost(c: pg.Client): void {
    c.end().catch(() => {});
    if (closed || (client !== undefined && client !== c)) return;
    client = undefined;
    if (live) {
      live = false;
      onGap();
    }
    if (retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, reconnectDelayMs(failures++));
    retry.unref();
  }

  async function connect(): Promise<void> {
    const c = new pg.Client(config);
    // Every event of this client is handled: a lost connection is a reason to reconnect, never to crash. A
    // client is lost once ('error' then 'end' must not schedule two reconnections).
    let gone = false;
    const onLost = () => {
      if (gone) return;
      gone = true;
      lost(c);
    };
    c.on('error', onLost);
    c.on('end', onLost);
    c.on('notification', (message) => onNotify(message.payload ?? ''));
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
    } catch {
      onLost();
      return;
    }
    if (closed) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    live = true;
    failures = 0;
    onGap(); // what changed before LISTEN took effect was not announced to this process
  }

  await connect();
  return {
    isLive: () => live,
    async close() {
      closed = true;
      live = false;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
