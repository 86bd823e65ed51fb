// `playbase games list|create`: the games of the logged-in account.
import type { Command } from 'commander';
import { unwrap } from '../../client/index.js';
import { type CliIo, globals, print, table } from '../io.js';
import { loggedInClient } from '../session.js';

export function registerGames(program: Command, io: CliIo): void {
  const games = program.command('games').description('list and create games');
  games
    .command('list')
    .description('the games you own or collaborate on')
    .action(async (_options: unknown, cmd: Command) => {
      const g = globals(cmd);
      const client = await loggedInClient(io, g);
      const list = await unwrap(client.api.GET('/restv2/games'));
      print(io, g, list, () =>
        list.length === 0
          ? 'No games yet: `playbase games create <name>` makes one.'
          : table(
              ['API KEY', 'NAME', 'OWNER', 'CREATED'],
              list.map((x) => [x.apiKey, x.name, x.owner, x.created]),
            ),
      );
    });
  games
    .command('create')
    .description('create a game that you own')
    .argument('<name>', "the game's name")
    .option('--cluster <name>', 'runtime cluster (default: the server default)')
    .action(async (name: string, options: { cluster?: string }, cmd: Command) => {
      const g = globals(cmd);
      const client = await loggedInClient(io, g);
      const body = options.cluster ? { name, cluster: options.cluster } : { name };
      const game = await unwrap(client.api.POST('/restv2/games', { body }));
      print(io, g, game, () => `Created ${game.name}: API key ${game.apiKey} (cluster ${game.cluster}).`);
    });
}
