// `playbase import mongo|data FILE`: uploads an export file into a stage (all of it or nothing) with a progress
// bar. Needs the Data Explorer permission at write level (nosql.dataExplorer 2).
import { open, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { Argument, Option } from 'commander';
import { apiError, type PlaybaseClient, type Stage, type StagePaths } from '../../client/index.js';
import { CliError, type CliIo, globals, print, table } from '../io.js';
import { byteBar } from '../progress.js';
import { gameOf, loggedInClient } from '../session.js';
import { postFile } from '../upload.js';

interface ImportOptions {
  game?: string;
  stage: Stage;
}

type Kind = 'mongo' | 'data';

/** The server's answer (docs/import.md): `{imported, collections}`. */
type ImportAnswer =
  StagePaths['/restv2/game/{gameApiKey}/mongo/import']['post']['responses'][200]['content']['application/json'];

interface Source {
  file: string;
  bytes: number;
  contentType: string;
}

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
      const url = `${await client.stageUrl(apiKey, options.stage)}/restv2/game/${encodeURIComponent(apiKey)}/${kind}/import`;
      const answer = await upload(io, !g.json, client, apiKey, url, source);
      print(io, g, answer, () => summary(kind, answer, apiKey, options.stage));
    });
}

/**
 * Sends the file with the game's JWT and a bar. The JWT is not renewed and the file not sent again on a 401: each
 * run gets a JWT minted seconds before, which expires mid-upload at the earliest, and the server checks it first.
 */
async function upload(
  io: CliIo,
  show: boolean,
  client: PlaybaseClient,
  apiKey: string,
  url: string,
  source: Source,
): Promise<ImportAnswer> {
  const headers = {
    'content-type': source.contentType,
    // Declared, so that the server refuses a file over its limit before it is sent.
    'content-length': String(source.bytes),
    'x-svc-jwt': await client.jwt(apiKey, 'nosql'),
  };
  const bar = byteBar(io, show, source.bytes, 'uploading');
  const answer = await postFile(url, headers, source.file, bar.update).finally(() => bar.stop());
  let body: unknown = answer.body;
  try {
    body = JSON.parse(answer.body);
  } catch {
    // Not JSON (a proxy's page): apiError keeps the text.
  }
  if (answer.status === 200) return body as ImportAnswer;
  throw apiError(answer.status, body);
}

/** The file's size, and its content type from its first bytes: gzip's magic number, else NDJSON. */
async function inspect(file: string): Promise<Source> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(`${file} is not a file`);
    const handle = await open(file, 'r');
    try {
      const head = Buffer.alloc(2);
      const { bytesRead } = await handle.read(head, 0, 2, 0);
      const gzip = bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
      return { file, bytes: info.size, contentType: gzip ? 'application/gzip' : 'application/x-ndjson' };
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
