// RegistrationRequest, AuthenticationRequest, DeviceAuthenticationRequest and AccountDetailsRequest.
import { toWire, type Value } from '../query/values.js';
import { clearFailures, isLocked, recordFailure } from './login-lockout.js';
import {
  checkPassword,
  deviceLogin,
  findPlayer,
  isBanned,
  loginAnswer,
  markSeen,
  type Player,
  registerPlayer,
} from './players.js';
import { type Answer, fail, type RequestInput, readString } from './request-kit.js';

/**
 * The player a request acts as (its playerId); REQUIRED when absent, UNRECOGNISED when no such player, LOCKED
 * when it is banned (unless the request is the management API's own, `input.admin`).
 */
export async function actingPlayer(input: RequestInput): Promise<{ player: Player } | { error: Answer }> {
  const id = readString(input.body, 'playerId', true);
  if ('error' in id) return id;
  const player = await findPlayer(input.env.pool, input.gs, id.value as string);
  if (!player) return { error: fail('playerId', 'UNRECOGNISED') };
  if (!input.admin && isBanned(player.doc)) return { error: fail('playerId', 'LOCKED') };
  return { player };
}

export async function registration(input: RequestInput): Promise<Answer> {
  const { body, env, gs } = input;
  const userName = readString(body, 'userName', true);
  if ('error' in userName) return userName.error;
  const password = readString(body, 'password', true);
  if ('error' in password) return password.error;
  const displayName = readString(body, 'displayName', false);
  if ('error' in displayName) return displayName.error;
  const player = await registerPlayer(
    env.pool,
    gs,
    {
      userName: userName.value as string,
      password: password.value as string,
      displayName: displayName.value ?? (userName.value as string),
    },
    env.clock(),
  );
  return player ? loginAnswer(player, true) : fail('USERNAME', 'TAKEN');
}

export async function authentication(input: RequestInput): Promise<Answer> {
  const { body, env, gs } = input;
  const userName = readString(body, 'userName', true);
  if ('error' in userName) return userName.error;
  const password = readString(body, 'password', true);
  if ('error' in password) return password.error;
  const name = userName.value as string;
  if (await isLocked(env.pool, gs, name, env.clock())) return fail('DETAILS', 'LOCKED');
  const player = await checkPassword(env.pool, gs, name, password.value as string);
  if (player) {
    await clearFailures(env.pool, gs, name);
    // A banned player's right password answers as a locked name does; a wrong one as any wrong one.
    if (isBanned(player.doc)) return fail('DETAILS', 'LOCKED');
    await markSeen(env.pool, gs, player, env.clock());
    return loginAnswer(player, false);
  }
  const locked = await recordFailure(env.pool, gs, name, env.clock(), env.lockout);
  return fail('DETAILS', locked ? 'LOCKED' : 'UNRECOGNISED');
}

export async function deviceAuthentication(input: RequestInput): Promise<Answer> {
  const { body, env, gs } = input;
  const deviceId = readString(body, 'deviceId', true);
  if ('error' in deviceId) return deviceId.error;
  const deviceOS = readString(body, 'deviceOS', true);
  if ('error' in deviceOS) return deviceOS.error;
  const displayName = readString(body, 'displayName', false);
  if ('error' in displayName) return displayName.error;
  const login = await deviceLogin(
    env.pool,
    gs,
    deviceId.value as string,
    displayName.value ?? null,
    env.clock(),
  );
  if (isBanned(login.player.doc)) return fail('DETAILS', 'LOCKED');
  if (!login.newPlayer) await markSeen(env.pool, gs, login.player, env.clock());
  return loginAnswer(login.player, login.newPlayer);
}

const CURRENCIES = ['currency1', 'currency2', 'currency3', 'currency4', 'currency5', 'currency6'] as const;

export async function accountDetails(input: RequestInput): Promise<Answer> {
  const acting = await actingPlayer(input);
  if ('error' in acting) return acting.error;
  const { doc } = acting.player;
  const out: Record<string, unknown> = { achievements: [] };
  for (const c of CURRENCIES) out[c] = toWire((doc[c] ?? 0) as Value);
  out.displayName = doc.displayName ?? null;
  out.externalIds = toWire((doc.externalIds ?? {}) as Value);
  out.userId = acting.player.id;
  out.virtualGoods = {};
  return out;
}
