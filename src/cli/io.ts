// What a CLI command reads and writes: the environment and the standard streams, passed in (tests run the CLI in
// their own process with their own), and how it prints: human lines, or one JSON value with --json.
import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean; columns?: number };
}

export function processIo(): CliIo {
  return { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** The options every command takes (before or after its name). */
export interface GlobalOptions {
  json?: boolean;
  server?: string;
}

/** The global options as a command sees them. */
export function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

/** A failure the CLI reports as one line and an exit code; never a stack. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** --json prints `value` as JSON; otherwise the human lines. */
export function print(io: CliIo, options: GlobalOptions, value: unknown, human: () => string): void {
  io.stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** A notice for a person (progress, hints): on stderr, so that stdout stays the answer. */
export function note(io: CliIo, text: string): void {
  io.stderr.write(`${text}\n`);
}

/** Rows as aligned columns under a header. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
