// `playbase export mongo|data --out FILE`: asks the stage for an export link, then downloads the file with a
// progress bar. Needs the Data Explorer permission (nosql.dataExplorer).
import type { Command } from 'commander';
import { Argument, Option } from 'commander';
import { type Stage, unwrap } from '../../client/index.js';
import { type CliIo, globals, note, print } from '../io.js';
import { downloadTo } from '../progress.js';
import { gameOf, loggedInClient } from '../session.js';

interface ExportOptions {
  game?: string;
  out: string;
  stage: Stage;
}

export function registerExport(program: Command, io: CliIo): void {
  program
    .command('export')
    .description("download a stage's documents (mongo) or data-service items (data): gzip NDJSON")
    .addArgument(new Argument('<kind>', 'mongo or data').choices(['mongo', 'data']))
    .requiredOption('--out <file>', 'where to write the .ndjson.gz file')
    .option('--game <apiKey>', 'the game (default: PLAYBASE_GAME)')
    .addOption(new Option('--stage <stage>', 'the stage').choices(['live', 'preview']).default('live'))
    .action(async (kind: 'mongo' | 'data', options: ExportOptions, cmd: Command) => {
      const g = globals(cmd);
      const client = await loggedInClient(io, g);
      const apiKey = gameOf(io, options.game);
      const stage = await client.stage(apiKey, options.stage);
      // The server writes the whole file before it answers the link: say so, it can take a while.
      if (!g.json && io.stderr.isTTY)
        note(io, `The server is exporting the ${options.stage} stage of ${apiKey}...`);
      const params = { params: { path: { gameApiKey: apiKey } } };
      const link = await unwrap(
        kind === 'mongo'
          ? stage.GET('/restv2/game/{gameApiKey}/mongo/export', params)
          : stage.GET('/restv2/game/{gameApiKey}/data/export', params),
      );
      const response = await client.download(link.url);
      const bytes = await downloadTo(io, response, options.out, link.bytes, !g.json);
      const what = kind === 'mongo' ? 'documents' : 'items';
      print(
        io,
        g,
        { kind, stage: options.stage, apiKey, file: options.out, count: link.count, bytes },
        () =>
          `Exported ${link.count} ${what} of ${apiKey} (${options.stage}) to ${options.out}: ${bytes} bytes.`,
      );
    });
}
