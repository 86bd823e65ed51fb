// One execution as the event loop sees it: the answers to its host calls, and its transaction. The transaction
// opens at the first write (reads before it use the pool); the players the script changed are written into it
// when the script ends; then it commits, or, when the script failed, rolls back every write of the execution.
import type pg from 'pg';
import type { DocumentCompute } from '../nosql/compute-tasks.js';
import type { GameScope } from '../nosql/scope.js';
import { type ExecutionTransaction, openExecutionTransaction } from '../store/execution-transaction.js';
import { collectionCall } from './host-collections.js';
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
}

let nextOwner = 1;

function describeCall(op: string, a: Record<string, unknown>): string {
  const part = (v: unknown) => String(v).slice(0, 100);
  if (op === 'collection') return `${part(a.kind)}Collection(${part(a.name)}).${part(a.verb)}`;
  if (op === 'player' || op === 'cache' || op === 'lock' || op === 'scheduler') return `${op}.${part(a.op)}`;
  return `${op}(${part(a.name)})`;
}

export class Session {
  readonly owner = nextOwner++;
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
  ) {
    this.players = new PlayerStates(this);
    this.tenant = `${gs.stage}\u0000${gs.game}`;
  }

  /** Where reads go: the transaction once it is open (the script reads its own writes), else the pool. */
  readPool(): pg.Pool {
    return this.tx ? this.tx.pool : this.env.pool;
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
  handle(op: string, argsText: string): Promise<string | undefined> {
    if (this.ended) return Promise.reject(new Error('the execution has ended'));
    const call = this.timed(op, argsText);
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

  private async timed(op: string, argsText: string): Promise<string | undefined> {
    const started = performance.now();
    const args = JSON.parse(argsText) as Record<string, unknown>;
    try {
      return await this.dispatch(op, args);
    } finally {
      if (this.calls.length < 1000)
        this.calls.push({ op: describeCall(op, args), ms: performance.now() - started });
    }
  }

  private async dispatch(op: string, args: Record<string, unknown>): Promise<string | undefined> {
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
    this.env.locks.releaseAll(this.owner);
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
