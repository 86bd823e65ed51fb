// The `playbase` command line: global options, the commands (one module each under commands/), help, errors.
import { Command, CommanderError } from 'commander';
import { PlaybaseApiError } from '../client/index.js';
import { registerBackup } from './commands/backup.js';
import { registerConfig } from './commands/config.js';
import { registerExport } from './commands/export.js';
import { registerGames } from './commands/games.js';
import { registerImport } from './commands/import.js';
import { registerLogin } from './commands/login.js';
import { registerRotateKey } from './commands/rotate-key.js';
import { registerScripts } from './commands/scripts.js';
import { registerSnapshot } from './commands/snapshot.js';
import { registerUsers } from './commands/users.js';
import { CliError, type CliIo } from './io.js';

/** A command module: adds its command (and subcommands) to the program. */
export type RegisterCommand = (program: Command, io: CliIo) => void;

// Each command is a module of its own; add a new one here.
const COMMANDS: RegisterCommand[] = [
  registerLogin,
  registerGames,
  registerConfig,
  registerSnapshot,
  registerScripts,
  registerExport,
  registerImport,
  registerUsers,
  registerRotateKey,
  registerBackup,
];

const EXAMPLES = `
Examples:
  $ playbase login --server https://playbase.example --username ada@studio.example
  $ playbase games create "Space Miners"
  $ playbase config pull game.json --game <apiKey>
  $ playbase config push game.json --game <apiKey>        # shows the diff, then asks
  $ playbase snapshot create --game <apiKey> --description "Season 3"
  $ playbase snapshot publish <snapshotId> --game <apiKey>
  $ playbase export mongo --game <apiKey> --stage preview --out players.ndjson.gz
  $ playbase import mongo players.ndjson.gz --game <otherApiKey> --stage preview   # all or nothing
  $ playbase users create grace@studio.example --country GB
  $ playbase games list --json | jq -r '.[].apiKey'
  $ DATABASE_URL=postgres://... playbase backup playbase.dump     # on the server's machine
  $ PLAYBASE_DATA_DIR=./.playbase playbase restore backup.tar.gz  # embedded store: server stopped

Environment: PLAYBASE_URL (server), PLAYBASE_GAME (--game), PLAYBASE_USERNAME and PLAYBASE_PASSWORD (login).
The login is kept in $XDG_CONFIG_HOME/playbase/login.json (else ~/.config/playbase), readable by you only.
`;

function buildProgram(io: CliIo): Command {
  const program = new Command('playbase')
    .description(
      'Manage a Playbase server: games, configuration as code, snapshots, exports and imports, accounts',
    )
    .option('--json', 'print the answer as JSON, for scripts')
    .option('--server <url>', 'the server (default: PLAYBASE_URL, else the one logged in to)')
    .addHelpText('after', EXAMPLES)
    .showHelpAfterError('(playbase --help lists the commands)')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride();
  // Commands made after these settings inherit them (output, exit handling); the global options are taken
  // before or after a command's name.
  for (const register of COMMANDS) register(program, io);
  return program;
}

/** Runs the CLI; answers the exit code (0 done, 1 failed, 2 wrong usage). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  // No command: the usage, as an answer (commander would print it as an error).
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    return reportFailure(io, argv.includes('--json'), e);
  }
}

function reportFailure(io: CliIo, json: boolean, e: unknown): number {
  if (e instanceof CommanderError) {
    // Help and version are "errors" to commander; anything else is a usage error it has already printed.
    return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : 2;
  }
  const { message, code, exitCode } = describe(e);
  if (json) io.stderr.write(`${JSON.stringify({ error: { message, code } })}\n`);
  else io.stderr.write(`playbase: ${message}\n`);
  return exitCode;
}

function describe(e: unknown): { message: string; code?: string; exitCode: number } {
  if (e instanceof PlaybaseApiError) {
    const relogin = e.status === 401 ? ' (run `playbase login`)' : '';
    const request = e.requestId ? `, request ${e.requestId}` : '';
    return { message: `${e.message} [${e.code}${request}]${relogin}`, code: e.code, exitCode: 1 };
  }
  if (e instanceof CliError) return { message: e.message, exitCode: e.exitCode };
  const cause = (e as { cause?: { code?: string } }).cause;
  if (e instanceof TypeError && cause?.code === 'ECONNREFUSED')
    return { message: 'the server does not answer (is it running? is --server right?)', exitCode: 1 };
  return { message: (e as Error).stack ?? String(e), exitCode: 1 };
}
