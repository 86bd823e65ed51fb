// `playbase scripts export|import`: a game's Cloud Code as a zip in the original platform's layout
// (docs/cloud-code.md, "Export and import"). Needs configurator.cloudCode (1 to export, 2 to import).
import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { unwrap } from '../../client/index.js';
import { CliError, type CliIo, globals, print } from '../io.js';
import { gameOf, loggedInClient } from '../session.js';

const GAME_OPTION = ['--game <apiKey>', 'the game (default: PLAYBASE_GAME)'] as const;
const EXPORT = '/restv2/game/{apiKey}/config/~scripts/export';
const IMPORT = '/restv2/game/{apiKey}/config/~scripts/import';

async function exportScripts(io: CliIo, cmd: Command, file: string, options: { game?: string }) {
  const g = globals(cmd);
  const client = await loggedInClient(io, g);
  const apiKey = gameOf(io, options.game);
  const zip = await unwrap(client.api.GET(EXPORT, { params: { path: { apiKey } }, parseAs: 'arrayBuffer' }));
  try {
    await writeFile(file, new Uint8Array(zip as ArrayBuffer));
  } catch (e) {
    throw new CliError(`cannot write ${file}: ${(e as Error).message}`);
  }
  const bytes = (zip as ArrayBuffer).byteLength;
  print(io, g, { apiKey, file, bytes }, () => `Wrote the scripts of ${apiKey} to ${file} (${bytes} bytes).`);
}

async function importScripts(
  io: CliIo,
  cmd: Command,
  file: string,
  options: { game?: string; dryRun?: boolean },
) {
  const g = globals(cmd);
  let zip: Buffer;
  try {
    zip = await readFile(file);
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const client = await loggedInClient(io, g);
  const apiKey = gameOf(io, options.game);
  const answer = await unwrap(
    client.api.POST(IMPORT, {
      params: { path: { apiKey }, query: { dryRun: options.dryRun === true } },
      body: zip as never,
      bodySerializer: (body: unknown) => body as Uint8Array as never,
      headers: { 'content-type': 'application/zip' },
    }),
  );
  print(io, g, answer, () => {
    const lines = [
      `${answer.dryRun ? 'Would import' : 'Imported'} ${file} into ${apiKey}:`,
      ...(['added', 'changed', 'deleted'] as const).map((k) => `  ${k}: ${answer[k].join(', ') || '-'}`),
      `  unchanged: ${answer.unchanged.length}`,
      ...answer.refused.map((r) => `  refused ${r.file}: ${r.reason}`),
    ];
    return lines.join('\n');
  });
}

export function registerScripts(program: Command, io: CliIo): void {
  const scripts = program
    .command('scripts')
    .description("a game's Cloud Code as a zip (event/, modules/...)");
  scripts
    .command('export')
    .description('write the working copy’s scripts to a zip')
    .argument('<file>', 'the zip to write')
    .option(...GAME_OPTION)
    .action((file: string, options, cmd: Command) => exportScripts(io, cmd, file, options));
  scripts
    .command('import')
    .description('make the scripts those of a zip (scripts it does not hold are deleted)')
    .argument('<file>', 'a zip in the export layout')
    .option(...GAME_OPTION)
    .option('--dry-run', 'answer what would be added, changed, deleted and refused; change nothing')
    .action((file: string, options, cmd: Command) => importScripts(io, cmd, file, options));
}
