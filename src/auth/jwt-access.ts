// What a JWT may do on its game: what its claims carry, lowered to what its holder has now where that is known.
import { deepFreeze } from './auth-cache.js';
import type { GameAccess } from './game-access.js';
import type { GameClaims } from './jwt.js';
import { type Level, levelOf, type Permissions } from './permissions.js';

interface Memo {
  claimed: GameAccess;
  /** The current access the last narrowing was made from, compared by identity. */
  current?: GameAccess;
  narrowed?: GameAccess;
}

// Per verified JWT (its claims object is kept by the JWT cache and the same on every request): the hook's fast
// path then builds nothing. The current access is a remembered answer of the auth cache, a new object after
// every invalidation, so a narrowing is never reused past a change of groups or collaborators.
const memos = new WeakMap<GameClaims, Memo>();

function memoOf(claims: GameClaims): Memo {
  let memo = memos.get(claims);
  if (!memo) {
    memo = {
      claimed: deepFreeze({
        apiKey: claims.apiKey,
        owner: claims.owner === true,
        groups: claims.groups ?? [],
        permissions: claims.permissions[claims.apiKey] ?? {},
      }),
    };
    memos.set(claims, memo);
  }
  return memo;
}

/** The access the claims carry (a process that cannot read the control database has nothing else). */
export function claimedAccess(claims: GameClaims): GameAccess {
  return memoOf(claims).claimed;
}

/** The lower of two levels on every key, ancestors first, leaving out what a key inherits anyway. */
export function lowerOf(carried: Permissions, current: Permissions): Permissions {
  const out: Permissions = {};
  for (const [key, level] of Object.entries(carried))
    out[key] = Math.min(level, levelOf(current, key)) as Level;
  // A key only the current access names matters where it lowers what the carried key above it gives.
  const extra = Object.keys(current).filter((key) => !(key in carried));
  extra.sort((a, b) => a.length - b.length);
  for (const key of extra) {
    const level = Math.min(levelOf(carried, key), current[key] as Level) as Level;
    if (level !== levelOf(out, key)) out[key] = level;
  }
  return out;
}

/**
 * What the JWT may do now: a JWT never grants more than it carries (its scope) nor more than its holder has now
 * (a lowered group, a lost ownership). Losing the game altogether is refused before (game-access.ts).
 */
export function narrowedAccess(claims: GameClaims, current: GameAccess): GameAccess {
  const memo = memoOf(claims);
  if (memo.current === current && memo.narrowed) return memo.narrowed;
  const { claimed } = memo;
  const narrowed = deepFreeze({
    apiKey: claimed.apiKey,
    owner: claimed.owner && current.owner,
    groups: current.groups,
    permissions: lowerOf(claimed.permissions, current.permissions),
  });
  memo.current = current;
  memo.narrowed = narrowed;
  return narrowed;
}
