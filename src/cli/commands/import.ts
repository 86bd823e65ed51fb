// `playbase import mongo|data FILE`: uploads an export file into a stage (all of it or nothing) with a progress
// bar. Needs the Data Explorer permission at write level (nosql.dataExplorer 2).
import { open, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { Argument, Option } from 'commander';
import type { ImportAnswer, Stage } from '../../client/index.js';
import { CliError, type CliIo, globals, print, table } from '../io.js';
import { byteBar, fileBody } from '../progress.js';
import { gameOf, loggedInClient } from '../session.js';

interface ImportOptions {
  game?: string;
  stage: Stage;
}

type Kind = 'mongo' | 'data';

export function registerImport(program: Command, io: CliIo): void {
  program
    .command('import')
    .description(
      'load an export file into a stage, all of it or nothing (gzip NDJSON as exported, or NDJSON)',
    )
    .addArgument(new Argument('<kind>', 'mongo or data').choices(['mongo', 'data']))
    .argument('<file>', 'the file: .ndjson.gz as `playbase export` wrote it, or plain .ndjson')
    .option('--game <apiKey>', 'the game (default: PLAYBASE_GAME)')
    .addOption(new Option('--stage <stage>', 'the stage').choices(['live', 'preview']).default('live'))
    .action(async (kind: Kind, file: string, options: ImportOptions, cmd: Command) => {
      const g = globals(cmd);
      // The file first: a wrong name is said before anything is asked of the server.
      const source = await inspect(file);
      const client = await loggedInClient(io, g);
      const apiKey = gameOf(io, options.game);
      const bar = byteBar(io, !g.json, source.bytes, 'uploading');
      let answer: ImportAnswer;
      try {
        answer = await client.upload(apiKey, options.stage, `/restv2/game/{gameApiKey}/${kind}/import`, {
          open: () => fileBody(file, bar.update),
          contentType: source.contentType,
          bytes: source.bytes,
        });
      } finally {
        bar.stop();
      }
      print(io, g, answer, () => summary(kind, answer, apiKey, options.stage));
    });
}

/** The file's size, and its content type from its first bytes: gzip's magic number, else NDJSON. */
async function inspect(file: string): Promise<{ bytes: number; contentType: string }> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(`${file} is not a file`);
    const handle = await open(file, 'r');
    try {
      const head = Buffer.alloc(2);
      const { bytesRead } = await handle.read(head, 0, 2, 0);
      const gzip = bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
      return { bytes: info.size, contentType: gzip ? 'application/gzip' : 'application/x-ndjson' };
    } finally {
      await handle.close();
    }
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

function summary(kind: Kind, answer: ImportAnswer, apiKey: string, stage: Stage): string {
  const [record, group] = kind === 'mongo' ? ['document', 'collection'] : ['item', 'data type'];
  const names = Object.keys(answer.collections);
  const head = `Imported ${plural(answer.imported, record)} into ${plural(names.length, group)} of ${apiKey} (${stage}).`;
  if (names.length === 0) return head;
  const rows = names.map((name) => [name, String(answer.collections[name])]);
  return `${head}\n${table([group.toUpperCase(), `${record.toUpperCase()}S`], rows)}`;
}
