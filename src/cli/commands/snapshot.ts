// `playbase snapshot list|create|publish`: versions of a game's configuration, and what the Live stage runs.
import type { Command } from 'commander';
import { unwrap } from '../../client/index.js';
import { type CliIo, globals, print, table } from '../io.js';
import { gameOf, loggedInClient } from '../session.js';

const GAME_OPTION = ['--game <apiKey>', 'the game (default: PLAYBASE_GAME)'] as const;

async function list(io: CliIo, cmd: Command, options: { game?: string; page: string; pageSize: string }) {
  const g = globals(cmd);
  const client = await loggedInClient(io, g);
  const apiKey = gameOf(io, options.game);
  const snapshots = await unwrap(
    client.api.GET('/restv2/game/{apiKey}/admin/snapshots/page/{n}', {
      params: { path: { apiKey, n: Number(options.page) }, query: { pageSize: Number(options.pageSize) } },
    }),
  );
  print(io, g, snapshots, () =>
    snapshots.length === 0
      ? 'No snapshots: `playbase snapshot create` saves one.'
      : table(
          ['ID', 'CREATED', 'BY', 'LIVE', 'DESCRIPTION'],
          snapshots.map((s) => [s.id, s.created, s.createdBy, s.published ? 'yes' : '', s.description]),
        ),
  );
}

async function create(io: CliIo, cmd: Command, options: { game?: string; description: string }) {
  const g = globals(cmd);
  const client = await loggedInClient(io, g);
  const apiKey = gameOf(io, options.game);
  const saved = await unwrap(
    client.api.POST('/restv2/game/{apiKey}/admin/snapshots', {
      params: { path: { apiKey } },
      body: { description: options.description },
    }),
  );
  print(
    io,
    g,
    saved,
    () => `Saved snapshot ${saved.id}${saved.description ? ` (${saved.description})` : ''}.`,
  );
}

async function publish(io: CliIo, cmd: Command, id: string, options: { game?: string }) {
  const g = globals(cmd);
  const client = await loggedInClient(io, g);
  const apiKey = gameOf(io, options.game);
  const published = await unwrap(
    client.api.POST('/restv2/game/{apiKey}/admin/snapshots/{id}/publish', {
      params: { path: { apiKey, id } },
    }),
  );
  print(
    io,
    g,
    published,
    () => `Published snapshot ${published.id}: the Live stage of ${apiKey} runs it now.`,
  );
}

export function registerSnapshot(program: Command, io: CliIo): void {
  const snapshot = program.command('snapshot').description("save, list and publish a game's configuration");
  snapshot
    .command('list')
    .description('snapshots, newest first')
    .option(...GAME_OPTION)
    .option('--page <n>', 'page, from 1', '1')
    .option('--page-size <n>', 'snapshots a page, at most 100', '20')
    .action((options, cmd: Command) => list(io, cmd, options));
  snapshot
    .command('create')
    .description('save the working configuration (what Preview runs) as a snapshot')
    .option(...GAME_OPTION)
    .option('--description <text>', 'what it is', '')
    .action((options, cmd: Command) => create(io, cmd, options));
  snapshot
    .command('publish')
    .description('make a snapshot the one the Live stage runs')
    .argument('<id>', 'the snapshot (see `snapshot list`)')
    .option(...GAME_OPTION)
    .action((id: string, options, cmd: Command) => publish(io, cmd, id, options));
}
