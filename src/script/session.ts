// One execution as the event loop sees it: the answers to its host calls, and its transaction. The transaction
// opens at the first write (reads before it use the pool); the players the script changed are written into it
// when the script ends; then it commits, or, when the script failed, rolls back every write of the execution.
import type pg from 'pg';
import type { GameChanges } from '../game-changes.js';
import type { DocumentCompute } from '../nosql/compute-tasks.js';
import type { DdlOptions } from '../nosql/indexes.js';
import type { GameScope } from '../nosql/scope.js';
import type { Doc } from '../query/values.js';
import {
  type ExecutionTransaction,
  openExecutionTransaction,
  openNestedTransaction,
} from '../store/execution-transaction.js';
import type { ScriptCall, ScriptOutcome } from '../types/script-runner.js';
import type { Nest } from './engine-pool.js';
import { HOST_CALLS } from './host-calls.js';
import { collectionCall } from './host-collections.js';
import type { HttpSettings } from './host-http.js';
import { PlayerStates } from './host-players.js';
import { schedulerCall } from './host-scheduler.js';
import type { ScriptCaches, ScriptLocks } from './shared-state.js';

export interface ScriptEnv {
  pool: pg.Pool;
  compute: DocumentCompute;
  clock: () => number;
  statementTimeoutMs: number;
  caches: ScriptCaches;
  locks: ScriptLocks;
  /** How index builds run (ensureIndex): CONCURRENTLY on PostgreSQL; absent, as on the embedded store. */
  ddl?: DdlOptions;
  /** One execution's time budget: host calls that wait (getHttp) never wait past it. */
  timeLimitMs?: number;
  /** Spark.getHttp: the hosts scripts may call (absent: none). */
  http?: HttpSettings;
  /** Games whose configuration changed (a cluster's replica applied it): the config cache forgets them. */
  gameChanges?: GameChanges;
  /** Runs a script nested in a host call of `parent` (SparkRequests.<Request>.Execute; run.ts). */
  nested?: (parent: Session, nest: Nest, call: ScriptCall) => Promise<ScriptOutcome>;
}

let nextOwner = 1;

function describeCall(op: string, a: Record<string, unknown>): string {
  const part = (v: unknown) => String(v).slice(0, 100);
  if (op === 'collection') return `${part(a.kind)}Collection(${part(a.name)}).${part(a.verb)}`;
  if (op === 'player' || op === 'cache' || op === 'lock' || op === 'scheduler') return `${op}.${part(a.op)}`;
  if (Object.hasOwn(HOST_CALLS, op)) return `${op}.${part(a.op ?? a.method ?? a.alg ?? 'send')}`;
  return `${op}(${part(a.name)})`;
}

export class Session {
  /** Who holds its lockKey locks: a nested execution's are its caller's, released when the caller ends. */
  readonly owner: number;
  /** 0, or how deep the execution is nested in Execute calls. */
  readonly depth: number;
  /** The outermost execution: it writes the script.log entries of the nested ones once its connection is free. */
  readonly root: Session;
  readonly deferredLogs: Doc[] = [];
  /** When the execution was handed to the sandbox (performance.now()): its budget runs from no earlier. */
  readonly started = performance.now();
  readonly created = new Set<string>();
  /** The host calls made, with their time (the trace of a Preview request). */
  readonly calls: { op: string; ms: number }[] = [];
  readonly players: PlayerStates;
  private tx: ExecutionTransaction | undefined;
  private ended = false;
  private readonly inflight = new Set<Promise<void>>();
  private opening: Promise<ExecutionTransaction> | undefined;
  private readonly tenant: string;

  constructor(
    readonly env: ScriptEnv,
    readonly gs: GameScope,
    readonly modules: ReadonlyMap<string, string>,
    private readonly parent?: Session,
  ) {
    this.players = new PlayerStates(this);
    this.tenant = `${gs.stage}\u0000${gs.game}`;
    this.owner = parent ? parent.owner : nextOwner++;
    this.depth = parent ? parent.depth + 1 : 0;
    this.root = parent ? parent.root : this;
  }

  /**
   * An execution nested in a host call of `parent`: its transaction is a savepoint of the parent's (opened now),
   * so its reads and writes go through the parent's connection, and its failure undoes its own writes alone.
   */
  static async nested(parent: Session, modules: ReadonlyMap<string, string>): Promise<Session> {
    const session = new Session(parent.env, parent.gs, modules, parent);
    const tx = await openNestedTransaction(await parent.transaction(), session.depth);
    session.tx = tx;
    session.opening = Promise.resolve(tx);
    return session;
  }

  /** Where reads go: the transaction once it is open (the script reads its own writes), else the pool. */
  readPool(): pg.Pool {
    return this.tx ? this.tx.pool : this.env.pool;
  }

  /** Whether the execution's transaction is open (it has written, or locked a player). */
  inTransaction(): boolean {
    return this.opening !== undefined;
  }

  /** The execution's transaction, opened at the first call (`forWrite`: by a write, see write()). */
  transaction(forWrite = false): Promise<ExecutionTransaction> {
    if (this.tx) return Promise.resolve(this.tx);
    this.opening ??= openExecutionTransaction(this.env.pool, forWrite).then((tx) => {
      this.tx = tx;
      return tx;
    });
    return this.opening;
  }

  /**
   * Runs one write of the script on the execution's transaction (the first write opens it, its BEGIN and
   * savepoint in one round trip): a throw undoes this write alone and reaches the script as its error.
   */
  async write<T>(fn: (tx: ExecutionTransaction) => Promise<T>): Promise<T> {
    const tx = await this.transaction(true);
    return tx.write(() => fn(tx));
  }

  /** One host call of the script: JSON text in, JSON text (or nothing) out; a throw is the script's error. */
  handle(op: string, argsText: string, nest?: Nest): Promise<string | undefined> {
    if (this.ended) return Promise.reject(new Error('the execution has ended'));
    const call = this.timed(op, argsText, nest);
    // The execution ends only once its calls have settled: a call still running when the script ran out of time
    // must not write after the rollback.
    const settled = call.then(
      () => {},
      () => {},
    );
    this.inflight.add(settled);
    void settled.then(() => this.inflight.delete(settled));
    return call;
  }

  private async timed(op: string, argsText: string, nest?: Nest): Promise<string | undefined> {
    const started = performance.now();
    const args = JSON.parse(argsText) as Record<string, unknown>;
    try {
      return await this.dispatch(op, args, nest);
    } finally {
      if (this.calls.length < 1000)
        this.calls.push({ op: describeCall(op, args), ms: performance.now() - started });
    }
  }

  private async dispatch(
    op: string,
    args: Record<string, unknown>,
    nest?: Nest,
  ): Promise<string | undefined> {
    switch (op) {
      case 'collection':
        return collectionCall(this, args as never);
      case 'player':
        return this.players.call(args);
      case 'module': {
        const source = this.modules.get(String(args.name));
        return source === undefined ? undefined : JSON.stringify(source);
      }
      case 'cache':
        return this.cache(args);
      case 'lock':
        return this.lock(args);
      case 'scheduler':
        return schedulerCall(this, args);
      default:
        if (Object.hasOwn(HOST_CALLS, op))
          return (HOST_CALLS[op] as (typeof HOST_CALLS)[string])(this, args, nest);
        throw new Error(`unknown call ${op.slice(0, 50)}`);
    }
  }

  private cache(a: Record<string, unknown>): string | undefined {
    const { caches } = this.env;
    const key = String(a.key ?? '');
    switch (a.op) {
      case 'put':
        caches.put(this.tenant, key, JSON.stringify(a.value ?? null));
        return undefined;
      case 'get':
        return caches.get(this.tenant, key);
      case 'remove':
        caches.remove(this.tenant, key);
        return undefined;
      default:
        caches.removeAll(
          this.tenant,
          typeof a.pattern === 'string' ? a.pattern.replace(/^\^/, '').replace(/\.\*$/, '') : null,
        );
        return undefined;
    }
  }

  private async lock(a: Record<string, unknown>): Promise<string> {
    const key = `${this.tenant}\u0000${String(a.name)}`;
    const { locks } = this.env;
    if (a.op === 'lock') {
      const wait = Math.min(Math.max(0, Number(a.wait) || 0), 60_000);
      return JSON.stringify(await locks.lock(key, this.owner, wait));
    }
    return JSON.stringify(locks.unlock(key, this.owner, a.op === 'unlockFully'));
  }

  /** Ends the execution: writes its players and commits, or rolls everything back; releases its locks. */
  async finish(ok: boolean): Promise<void> {
    this.ended = true;
    await Promise.all([...this.inflight]);
    if (!this.parent) this.env.locks.releaseAll(this.owner);
    if (this.opening) await this.opening.catch(() => {});
    const tx = this.tx;
    if (!tx) {
      if (ok && this.players.dirty()) await this.players.flush(await this.transaction());
      else return;
    }
    const open = this.tx as ExecutionTransaction;
    if (!ok) {
      await open.rollback();
      return;
    }
    try {
      await this.players.flush(open);
      await open.commit();
    } catch (e) {
      await open.rollback();
      throw e;
    }
  }
}
