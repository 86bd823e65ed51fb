// `playbase config pull|push FILE`: a game's whole configuration as code (GET and PUT /config), with a diff
// before pushing.
import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { createTwoFilesPatch } from 'diff';
import { type operations, type PlaybaseClient, unwrap } from '../../client/index.js';
import { CliError, type CliIo, type GlobalOptions, globals, print } from '../io.js';
import { confirm } from '../prompt.js';
import { gameOf, loggedInClient } from '../session.js';

type FullConfig = Awaited<ReturnType<typeof pullConfig>>;
type ConfigBody = operations['replaceConfig']['requestBody']['content']['application/json'];

async function pullConfig(client: PlaybaseClient, apiKey: string) {
  const config = await unwrap(
    client.api.GET('/restv2/game/{apiKey}/config', { params: { path: { apiKey }, query: { full: true } } }),
  );
  // ?full=true answers the whole document, never the summary (which alone has `version`).
  if ('version' in config) throw new CliError('the server answered a summary to ?full=true');
  return config;
}

/** The configuration as the file holds it: two-space JSON, one trailing newline. */
function render(config: unknown): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * The configuration as the diff compares it: without the `@id`s, which the server derives from the short codes
 * (a file written by hand has none, and that is no change).
 */
function comparable(config: unknown): string {
  return `${JSON.stringify(config, (key, value) => (key === '@id' ? undefined : value), 2)}\n`;
}

function counts(config: FullConfig): string {
  const n = (key: keyof FullConfig, noun: string) => {
    const list = config[key];
    const count = Array.isArray(list) ? list.length : 0;
    return `${count} ${noun}${count === 1 ? '' : 's'}`;
  };
  return [
    n('~events', 'event'),
    n('~runningTotals', 'running total'),
    n('~leaderboards', 'leaderboard'),
    n('~indexedTypes', 'indexed type'),
    n('~credentials', 'credential'),
  ].join(', ');
}

async function readConfigFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch (e) {
    throw new CliError(`${file} is not a configuration (a JSON object): ${(e as Error).message}`);
  }
}

/** Colours a unified diff for a terminal: additions green, removals red. */
function colour(io: CliIo, options: GlobalOptions, patch: string): string {
  if (!io.stdout.isTTY || options.json || io.env.NO_COLOR) return patch;
  return patch
    .split('\n')
    .map((l) =>
      l.startsWith('+') && !l.startsWith('+++')
        ? `\x1b[32m${l}\x1b[0m`
        : l.startsWith('-') && !l.startsWith('---')
          ? `\x1b[31m${l}\x1b[0m`
          : l,
    )
    .join('\n');
}

async function push(io: CliIo, cmd: Command, file: string, options: { game?: string; yes?: boolean }) {
  const g = globals(cmd);
  const client = await loggedInClient(io, g);
  const apiKey = gameOf(io, options.game);
  const wanted = await readConfigFile(file);
  const current = await pullConfig(client, apiKey);
  // The apiKey of the file is ignored by the server (a file pulled from one game may be pushed to another).
  const before = comparable({ ...current, apiKey });
  const after = comparable({ ...wanted, apiKey });
  const patch = createTwoFilesPatch(`${apiKey} (server)`, file, before, after, '', '', { context: 3 });
  const changed = before !== after;
  if (!changed) {
    print(
      io,
      g,
      { apiKey, changed: false, applied: false, diff: '' },
      () => `No change: ${apiKey} already has this configuration.`,
    );
    return;
  }
  if (!g.json) io.stdout.write(colour(io, g, patch));
  if (!options.yes && !(await confirm(io, `Replace the configuration of ${apiKey}?`, 'add --yes to push'))) {
    throw new CliError('nothing pushed');
  }
  const applied = await unwrap(
    client.api.PUT('/restv2/game/{apiKey}/config', {
      params: { path: { apiKey } },
      // The server validates the file whole (400 VALIDATION_FAILED naming the field); sent as it is.
      body: wanted as ConfigBody,
    }),
  );
  print(
    io,
    g,
    { apiKey, changed: true, applied: true, diff: patch },
    () => `Pushed: ${apiKey} has ${counts(applied)}.`,
  );
}

export function registerConfig(program: Command, io: CliIo): void {
  const config = program.command('config').description("a game's whole configuration as a JSON file");
  config
    .command('pull')
    .description('write the configuration to FILE (- for standard output)')
    .argument('<file>')
    .option('--game <apiKey>', 'the game (default: PLAYBASE_GAME)')
    .action(async (file: string, options: { game?: string }, cmd: Command) => {
      const g = globals(cmd);
      const client = await loggedInClient(io, g);
      const apiKey = gameOf(io, options.game);
      const pulled = await pullConfig(client, apiKey);
      if (file === '-') {
        io.stdout.write(render(pulled));
        return;
      }
      await writeFile(file, render(pulled));
      print(
        io,
        g,
        { apiKey, file, ...countsOf(pulled) },
        () => `Wrote ${counts(pulled)} of ${apiKey} to ${file}.`,
      );
    });
  config
    .command('push')
    .description('replace the configuration with FILE, after showing the difference and asking')
    .argument('<file>')
    .option('--game <apiKey>', 'the game (default: PLAYBASE_GAME)')
    .option('-y, --yes', 'push without asking')
    .action(async (file: string, options: { game?: string; yes?: boolean }, cmd: Command) =>
      push(io, cmd, file, options),
    );
}

function countsOf(config: FullConfig) {
  return {
    events: config['~events'].length,
    runningTotals: config['~runningTotals'].length,
    leaderboards: config['~leaderboards'].length,
    indexedTypes: config['~indexedTypes'].length,
    credentials: config['~credentials'].length,
  };
}
