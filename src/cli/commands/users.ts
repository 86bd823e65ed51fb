// `playbase users list|create|disable|enable|reset-password`: accounts of the server (administrator only).
import type { Command } from 'commander';
import { type PlaybaseClient, unwrap } from '../../client/index.js';
import { type CliIo, globals, print, table } from '../io.js';
import { askPassword } from '../prompt.js';
import { loggedInClient } from '../session.js';

type Account = Awaited<ReturnType<typeof listAccounts>>[number];

function listAccounts(client: PlaybaseClient) {
  return unwrap(client.api.GET('/restv2/auth/users'));
}

function describeAccount(a: Account): string {
  return `${a.username}${a.isAdmin ? ' (administrator)' : ''}: ${a.disabled ? 'disabled' : 'enabled'}, country ${a.country || '-'}`;
}

/** The new password: --password, else PLAYBASE_NEW_PASSWORD, else asked without echo. */
async function newPassword(io: CliIo, given: string | undefined): Promise<string> {
  return (
    given ??
    io.env.PLAYBASE_NEW_PASSWORD ??
    (await askPassword(io, 'New password: ', 'give --password or set PLAYBASE_NEW_PASSWORD'))
  );
}

async function list(io: CliIo, cmd: Command) {
  const g = globals(cmd);
  const accounts = await listAccounts(await loggedInClient(io, g));
  print(io, g, accounts, () =>
    table(
      ['USERNAME', 'COUNTRY', 'ADMIN', 'DISABLED', 'CREATED'],
      accounts.map((a) => [a.username, a.country, String(a.isAdmin), String(a.disabled), a.created]),
    ),
  );
}

async function create(
  io: CliIo,
  cmd: Command,
  email: string,
  options: { password?: string; country: string },
) {
  const g = globals(cmd);
  const client = await loggedInClient(io, g);
  const password = await newPassword(io, options.password);
  const body = { username: email, password, country: options.country };
  const account = await unwrap(client.api.POST('/restv2/auth/users', { body }));
  print(io, g, account, () => `Created ${describeAccount(account)}.`);
}

type Change = { disabled: boolean } | { password: string };

async function update(io: CliIo, cmd: Command, email: string, change: Change) {
  const g = globals(cmd);
  const client = await loggedInClient(io, g);
  const account = await unwrap(
    client.api.PUT('/restv2/auth/users/{username}', { params: { path: { username: email } }, body: change }),
  );
  print(io, g, account, () => `${describeAccount(account)}.`);
}

export function registerUsers(program: Command, io: CliIo): void {
  const users = program.command('users').description('accounts of the server (administrator)');
  users
    .command('list')
    .description('every account')
    .action((_options, cmd: Command) => list(io, cmd));
  users
    .command('create')
    .description('create an account (its owner logs in with the password given)')
    .argument('<email>', 'the user name: an e-mail address')
    .option('--password <password>', 'its password (default: PLAYBASE_NEW_PASSWORD, else asked)')
    .option('--country <code>', 'its country', '')
    .action((email: string, options, cmd: Command) => create(io, cmd, email, options));
  users
    .command('disable')
    .description('disable an account: it can no longer log in, its tokens stop working')
    .argument('<email>', 'the account')
    .action((email: string, _options, cmd: Command) => update(io, cmd, email, { disabled: true }));
  users
    .command('enable')
    .description('enable a disabled account')
    .argument('<email>', 'the account')
    .action((email: string, _options, cmd: Command) => update(io, cmd, email, { disabled: false }));
  users
    .command('reset-password')
    .description("set an account's password (ends its sessions)")
    .argument('<email>', 'the account')
    .option('--password <password>', 'the new password (default: PLAYBASE_NEW_PASSWORD, else asked)')
    .action(async (email: string, options: { password?: string }, cmd: Command) =>
      update(io, cmd, email, { password: await newPassword(io, options.password) }),
    );
}
