// SparkPlayer's host side: players are documents of the stage's `player` collection. A script reads a player
// when it loads it; the first change locks the player's row in the execution's transaction (so two scripts
// changing one player's currency wait for each other), and the changed document is written when the script
// ends (or at persist()), all rolled back with the rest of a failed execution.
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { type Doc, fromWire, idKey, ObjectId, toWire, type Value } from '../query/values.js';
import type { ExecutionTransaction } from '../store/execution-transaction.js';
import { readDoc, writeDoc } from '../store/runtime-documents.js';
import type { Session } from './session.js';

const PLAYERS = 'player';
const MAX_ID = 200;

interface State {
  doc: Doc;
  dirty: boolean;
}

function keyOf(playerId: string): string {
  return idKey(/^[0-9a-f]{24}$/.test(playerId) ? ObjectId.createFromHexString(playerId) : playerId);
}

/** What the script sees of a player: never its password hash. */
function view(playerId: string, doc: Doc): string {
  const out: Record<string, unknown> = { playerId };
  for (const [k, v] of Object.entries(doc)) {
    if (k === '_id' || k === 'password') continue;
    out[k] = toWire(v as Value);
  }
  return JSON.stringify(out);
}

function quantity(v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new Error('a currency quantity is a whole number, 0 or more');
  return v;
}

export class PlayerStates {
  private readonly states = new Map<string, State>();

  constructor(private readonly session: Session) {}

  dirty(): boolean {
    return [...this.states.values()].some((s) => s.dirty);
  }

  private async locked(playerId: string): Promise<State> {
    const held = this.states.get(playerId);
    if (held) return held;
    const tx = await this.session.transaction();
    const doc = await readDoc(tx.client, this.session.gs, PLAYERS, keyOf(playerId), true);
    if (!doc) throw new Error(`no player ${playerId.slice(0, MAX_ID)}`);
    const state = { doc, dirty: false };
    this.states.set(playerId, state);
    return state;
  }

  async call(a: Record<string, unknown>): Promise<string | undefined> {
    const playerId = a.playerId;
    if (typeof playerId !== 'string' || playerId.length === 0 || playerId.length > MAX_ID)
      throw new Error('a player id is a string of 1 to 200 characters');
    if (a.op === 'load') {
      const held = this.states.get(playerId);
      if (held) return view(playerId, held.doc);
      const doc = await readDoc(this.session.readPool(), this.session.gs, PLAYERS, keyOf(playerId));
      return doc ? view(playerId, doc) : JSON.stringify(null);
    }
    const state = await this.locked(playerId);
    const doc = state.doc;
    switch (a.op) {
      case 'set': {
        const field = a.field === 'privateData' ? 'privateData' : 'scriptData';
        const map = (doc[field] && typeof doc[field] === 'object' ? doc[field] : {}) as Doc;
        if (a.value === undefined) delete map[String(a.name)];
        else map[String(a.name)] = fromWire(a.value);
        doc[field] = map;
        state.dirty = true;
        return undefined;
      }
      case 'credit':
      case 'debit': {
        const n = Number(a.currency);
        if (!Number.isInteger(n) || n < 1 || n > 6) throw new Error('currencies are numbered 1 to 6');
        const qty = quantity(a.qty);
        const field = `currency${n}`;
        const balance = typeof doc[field] === 'number' ? (doc[field] as number) : 0;
        if (a.op === 'debit' && balance < qty) return JSON.stringify({ ok: false, balance });
        doc[field] = a.op === 'credit' ? balance + qty : balance - qty;
        state.dirty = true;
        return JSON.stringify({ ok: true, balance: doc[field] });
      }
      case 'persist':
        await this.write(await this.session.transaction(), playerId, state);
        return undefined;
      case 'validatePassword':
        return JSON.stringify(
          typeof doc.password === 'string' && typeof a.password === 'string'
            ? await verifyPassword(a.password, doc.password)
            : false,
        );
      case 'setPassword':
        if (typeof a.password !== 'string' || a.password.length === 0 || a.password.length > 1024)
          throw new Error('a password is a string of 1 to 1024 characters');
        doc.password = await hashPassword(a.password);
        state.dirty = true;
        return undefined;
      default:
        throw new Error(`unknown player call ${String(a.op).slice(0, 50)}`);
    }
  }

  private async write(tx: ExecutionTransaction, _playerId: string, state: State): Promise<void> {
    if (!state.dirty) return;
    await writeDoc(tx.client, this.session.gs, PLAYERS, state.doc);
    state.dirty = false;
  }

  async flush(tx: ExecutionTransaction): Promise<void> {
    for (const [id, state] of this.states) await this.write(tx, id, state);
  }
}
