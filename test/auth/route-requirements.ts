// What every route of a running server requires, found from outside: ask without a credential (which kinds it
// takes), then as a game member holding nothing (which key and level it names), then from the wrong game.
import type { CredentialKind } from '../../src/auth/authenticate.js';
import type { TestServer } from '../harness.js';
import {
  addCollaborator,
  call,
  createGame,
  createUser,
  issueJwt,
  jwtHeader,
  login,
  tokenHeader,
} from './helpers.js';

export type Requirement =
  | { kind: 'public' }
  | { kind: 'user'; credentials: CredentialKind[] }
  | { kind: 'admin'; credentials: CredentialKind[] }
  | { kind: 'game'; key: string; level: number; credentials: CredentialKind[] };

export interface ProbedRoute {
  method: string;
  /** The OpenAPI path, the stage prefix written `{stage}` (`/live` and `/preview` serve the same routes). */
  path: string;
  requirement: Requirement;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const KINDS: [string, CredentialKind][] = [
  ['Basic', 'basic'],
  ['X-SVCAccessToken', 'token'],
  ['X-SVC-JWT', 'jwt'],
];

function acceptedFrom(message: string): CredentialKind[] {
  const list = /\(([^)]*)\)/.exec(message)?.[1] ?? '';
  return KINDS.filter(([name]) => list.split(', ').includes(name)).map(([, kind]) => kind);
}

/** Every operation of the server's OpenAPI document with what it requires. */
export async function probeRequirements(server: TestServer): Promise<ProbedRoute[]> {
  const owner = await createUser(server, 'owner@probe.test');
  const member = await createUser(server, 'member@probe.test');
  // The JWTs belong to an account of their own: probing "log out everywhere" ends every session of `member`.
  const jwtHolder = await createUser(server, 'jwt-holder@probe.test');
  const stranger = await createUser(server, 'stranger@probe.test');
  const game = await createGame(server, owner, 'probe');
  const other = await createGame(server, owner, 'probe other');
  await call(server, 'POST', `/restv2/auth/game/${game}/groups`, tokenHeader(owner.token), {
    name: 'Nothing',
    permissions: { game: 0 },
  });
  await call(server, 'POST', `/restv2/auth/game/${other}/groups`, tokenHeader(owner.token), {
    name: 'Nothing',
    permissions: { game: 0 },
  });
  for (const who of [member, jwtHolder]) {
    await addCollaborator(server, owner, game, who.username, ['Nothing']);
    await addCollaborator(server, owner, other, who.username, ['Nothing']);
  }
  const jwt = await issueJwt(server, jwtHolder, game);
  const otherJwt = await issueJwt(server, jwtHolder, other);

  const spec = server.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  // Both stages are probed: /live and /preview must agree, and both show as `{stage}`.
  const probed: ProbedRoute[] = [];
  // A valid scope, so that the JWT route reaches its game check rather than refusing the filter.
  const values: Record<string, string> = { apiKey: game, gameApiKey: game, filter: 'nosql' };
  for (const [path, operations] of Object.entries(spec.paths)) {
    for (const verb of Object.keys(operations)) {
      const method = verb.toUpperCase() as Method;
      if (!['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].includes(method)) continue;
      const shown = path.replace(/^\/(?:live|preview)\//, '/{stage}/');
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? 'probe');
      const send = (headers: Record<string, string>) => call(server, method, url, headers);
      const requirement = await requirementOf(send, {
        jwt,
        otherJwt,
        // Fresh tokens each time: a probe of DELETE /restv2/auth/user logs the token it used out.
        member: () => login(server, member.username, member.password),
        stranger: () => login(server, stranger.username, stranger.password),
      });
      probed.push({ method, path: shown, requirement });
    }
  }
  return probed;
}

async function requirementOf(
  send: (headers: Record<string, string>) => ReturnType<typeof call>,
  who: { jwt: string; otherJwt: string; member: () => Promise<string>; stranger: () => Promise<string> },
): Promise<Requirement> {
  const anonymous = await send({});
  if (anonymous.statusCode !== 401 || anonymous.json().code !== 'AUTH_REQUIRED') return { kind: 'public' };
  const credentials = acceptedFrom(anonymous.json().message);
  const usesJwt = credentials.includes('jwt');
  const res = await send(usesJwt ? jwtHeader(who.jwt) : tokenHeader(await who.member()));
  const body = res.json();
  if (res.statusCode === 403 && body.code === 'ADMIN_REQUIRED') return { kind: 'admin', credentials };
  const named = /^Permission (\S+) at level (\d) required$/.exec(body.message ?? '');
  if (res.statusCode === 403 && body.code === 'PERMISSION_DENIED' && named) {
    return { kind: 'game', key: named[1] as string, level: Number(named[2]), credentials };
  }
  // Passed as a member holding nothing: level 0 of a game, or no game at all.
  const outsider = await send(usesJwt ? jwtHeader(who.otherJwt) : tokenHeader(await who.stranger()));
  if (['JWT_WRONG_GAME', 'GAME_ACCESS_DENIED'].includes(outsider.json().code)) {
    return { kind: 'game', key: 'game', level: 0, credentials };
  }
  return { kind: 'user', credentials };
}
