// `playbase login` and `logout`: an access token for the CLI, kept in the config directory, never printed.
import type { Command } from 'commander';
import { createPlaybaseClient } from '../../client/index.js';
import { CliError, type CliIo, globals, print } from '../io.js';
import { askLine, askPassword } from '../prompt.js';
import { forgetLogin, loggedInClient, readLogin, serverOf, writeLogin } from '../session.js';

/** The longest access token the server gives: a day, so that a working day needs one login. */
const DEFAULT_SECONDS = 86_400;

interface LoginOptions {
  username?: string;
  password?: string;
  expiresIn: string;
}

export function registerLogin(program: Command, io: CliIo): void {
  program
    .command('login')
    .description('log in with your account: keeps an access token (never shown) for the other commands')
    .option('--username <email>', 'account (default: PLAYBASE_USERNAME, else asked)')
    .option('--password <password>', 'password (default: PLAYBASE_PASSWORD, else asked without echo)')
    .option('--expires-in <seconds>', 'lifetime of the token, at most 86400', String(DEFAULT_SECONDS))
    .action(async (options: LoginOptions, cmd: Command) => login(io, cmd, options));
  program
    .command('logout')
    .description('revoke the kept access token and forget it')
    .action(async (_options: unknown, cmd: Command) => logout(io, cmd));
}

async function login(io: CliIo, cmd: Command, options: LoginOptions): Promise<void> {
  const g = globals(cmd);
  const server = serverOf(io, g, await readLogin(io.env));
  const seconds = Number(options.expiresIn);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > DEFAULT_SECONDS)
    throw new CliError('--expires-in must be a whole number of seconds from 1 to 86400', 2);
  const username =
    options.username ??
    io.env.PLAYBASE_USERNAME ??
    (await askLine(io, 'Username: ', 'give --username or set PLAYBASE_USERNAME'));
  const password =
    options.password ??
    io.env.PLAYBASE_PASSWORD ??
    (await askPassword(io, 'Password: ', 'give --password or set PLAYBASE_PASSWORD'));
  const client = createPlaybaseClient({ baseUrl: server, username, password, accessTokenSeconds: seconds });
  const session = await client.login();
  const file = await writeLogin(io.env, { server, ...session });
  const expiresAt = new Date(session.expiresAt).toISOString();
  print(io, g, { server, username: session.username, expiresAt, file }, () =>
    [
      `Logged in to ${server} as ${session.username} until ${expiresAt}.`,
      `The token is kept in ${file}.`,
    ].join('\n'),
  );
}

async function logout(io: CliIo, cmd: Command): Promise<void> {
  const g = globals(cmd);
  const stored = await readLogin(io.env);
  if (stored) {
    const client = await loggedInClient(io, { ...g, server: stored.server });
    // A token the server no longer knows is as good as revoked: forgetting it is what matters.
    await client.api.DELETE('/restv2/auth/user').catch(() => undefined);
  }
  await forgetLogin(io.env);
  print(io, g, { loggedOut: true, server: stored?.server ?? null }, () =>
    stored ? `Logged out of ${stored.server}.` : 'Not logged in.',
  );
}
