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

export function registerUsers(program: Command, io: CliIo): void {
  const users = program.command('users').description('accounts of the server (administrator)');
  users
    .command('list')
    .description('every account')
    .action(async (_options: unknown, cmd: Command) => {
      const g = globals(cmd);
      const list = await listAccounts(await loggedInClient(io, g));
      print(io, g, list, () =>
        table(
          ['USERNAME', 'COUNTRY', 'ADMIN', 'DISABLED', 'CREATED'],
          list.map((a) => [a.username, a.country, String(a.isAdmin), String(a.disabled), a.created]),
        ),
      );
    });
  users
    .command('create')
    .description('create an account (its owner logs in with the password given)')
    .argument('<email>', 'the user name: an e-mail address')
    .option('--password <password>', 'its password (default: PLAYBASE_NEW_PASSWORD, else asked)')
    .option('--country <code>', 'its country', '')
    .action(async (email: string, options: { password?: string; country: string }, cmd: Command) => {
      const g = globals(cmd);
      const client = await loggedInClient(io, g);
      const password = await newPassword(io, options.password);
      const body = { username: email, password, country: options.country };
      const account = await unwrap(client.api.POST('/restv2/auth/users', { body }));
      print(io, g, account, () => `Created ${describeAccount(account)}.`);
    });
  const update = (name: string, description: string, body: (o: { password?: string }) => Promise<object>) =>
    users
      .command(name)
      .description(description)
      .argument('<email>', 'the account')
      .action(async (email: string, options: { password?: string }, cmd: Command) => {
        const g = globals(cmd);
        const client = await loggedInClient(io, g);
        const account = await unwrap(
          client.api.PUT('/restv2/auth/users/{username}', {
            params: { path: { username: email } },
            body: await body(options),
          }),
        );
        print(io, g, account, () => `${describeAccount(account)}.`);
      });
  update('disable', 'disable an account: it can no longer log in, its tokens stop working', async () => ({
    disabled: true,
  }));
  update('enable', 'enable a disabled account', async () => ({ disabled: false }));
  update('reset-password', "set an account's password (ends its sessions)", async (o) => ({
    password: await newPassword(io, o.password),
  })).option('--password <password>', 'the new password (default: PLAYBASE_NEW_PASSWORD, else asked)');
}
