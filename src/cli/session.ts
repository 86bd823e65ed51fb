// The CLI's login: the server URL and an access token, kept in the user's config directory with mode 0600, and
// the typed client made from them.
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createPlaybaseClient, type PlaybaseClient } from '../client/index.js';
import { CliError, type CliIo, type GlobalOptions } from './io.js';

const DEFAULT_SERVER = 'http://127.0.0.1:8080';

export interface StoredLogin {
  server: string;
  username: string;
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** $XDG_CONFIG_HOME/playbase, else ~/.config/playbase. */
function configDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'playbase');
}

function loginFile(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'login.json');
}

export async function readLogin(env: NodeJS.ProcessEnv): Promise<StoredLogin | undefined> {
  try {
    return JSON.parse(await readFile(loginFile(env), 'utf8')) as StoredLogin;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read ${loginFile(env)}: ${(e as Error).message}`);
  }
}

/** Writes the login readable by its owner only (the token is a password for an hour or a day). */
export async function writeLogin(env: NodeJS.ProcessEnv, login: StoredLogin): Promise<string> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = loginFile(env);
  // mode applies when the file is created; chmod covers a file an older login left with other bits.
  await writeFile(file, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

export async function forgetLogin(env: NodeJS.ProcessEnv): Promise<void> {
  await rm(loginFile(env), { force: true });
}

/** The server to talk to: --server, else PLAYBASE_URL, else the one logged in to, else the local default. */
export function serverOf(io: CliIo, options: GlobalOptions, stored?: StoredLogin): string {
  return (options.server ?? io.env.PLAYBASE_URL ?? stored?.server ?? DEFAULT_SERVER).replace(/\/+$/, '');
}

/** A client with the stored access token; refuses clearly when there is none, or it is for another server. */
export async function loggedInClient(io: CliIo, options: GlobalOptions): Promise<PlaybaseClient> {
  const stored = await readLogin(io.env);
  const server = serverOf(io, options, stored);
  if (!stored) throw new CliError(`not logged in: run \`playbase login --server ${server}\` first`);
  if (stored.server !== server)
    throw new CliError(
      `logged in to ${stored.server}, not ${server}: run \`playbase login --server ${server}\``,
    );
  // Its expiry is not checked here: the server's clock is the one that counts (an expired token answers 401
  // TOKEN_EXPIRED, which the CLI reports with "run `playbase login`").
  return createPlaybaseClient({
    baseUrl: server,
    accessToken: stored.accessToken,
    accessTokenExpiresAt: stored.expiresAt,
  });
}

/** The game a command is about: --game, else PLAYBASE_GAME. */
export function gameOf(io: CliIo, game: string | undefined): string {
  const key = game ?? io.env.PLAYBASE_GAME;
  if (!key) throw new CliError('which game? give --game <apiKey> (or set PLAYBASE_GAME)', 2);
  return key;
}
