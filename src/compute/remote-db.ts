// The database as a compute thread sees it: the subset of pg.Pool and pg.PoolClient that the nosql core uses
// (query with text and values, connect, release), each call carried to the event loop that owns the pool.
// Values are prepared here (an array of 500,000 byte strings becomes one literal) and answers parsed here, so
// the event loop only moves text.
import pg from 'pg';
import utils from 'pg/lib/utils.js';
import type { DbRequest, TextResult } from './protocol.js';

type Call = (request: DbRequest) => Promise<unknown>;

const prepareValue = (utils as { prepareValue: (v: unknown) => unknown }).prepareValue;

function prepare(values: unknown[] | undefined): unknown[] {
  return (values ?? []).map((v) => prepareValue(v));
}

function parsed(result: TextResult): pg.QueryResult {
  const parsers = result.fields.map((f) => pg.types.getTypeParser(f.dataTypeID, 'text'));
  const rows = result.rows.map((values) => {
    const row: Record<string, unknown> = {};
    result.fields.forEach((f, i) => {
      const v = values[i];
      row[f.name] = v === null || v === undefined ? null : parsers[i]!(v);
    });
    return row;
  });
  return { rows, rowCount: result.rowCount, fields: [], command: '', oid: 0 } as unknown as pg.QueryResult;
}

function textOnly(text: unknown): string {
  if (typeof text !== 'string') throw new TypeError('a remote query takes (text, values)');
  return text;
}

class RemoteClient {
  constructor(
    private readonly call: Call,
    private readonly id: number,
  ) {}

  async query(text: unknown, values?: unknown[]): Promise<pg.QueryResult> {
    const request = { op: 'query', client: this.id, text: textOnly(text), values: prepare(values) } as const;
    return parsed((await this.call(request)) as TextResult);
  }

  release(error?: Error | boolean): void {
    void this.call({ op: 'release', client: this.id, failed: Boolean(error) }).catch(() => {});
  }
}

export class RemoteDb {
  constructor(private readonly call: Call) {}

  async query(text: unknown, values?: unknown[]): Promise<pg.QueryResult> {
    const request = { op: 'query', text: textOnly(text), values: prepare(values) } as const;
    return parsed((await this.call(request)) as TextResult);
  }

  async connect(): Promise<RemoteClient> {
    const { client } = (await this.call({ op: 'connect' })) as { client: number };
    return new RemoteClient(this.call, client);
  }

  /** The pool type the core functions are written against; this class implements the part they call. */
  asPool(): pg.Pool {
    return this as unknown as pg.Pool;
  }
}
