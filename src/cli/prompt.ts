// Questions to the person at the terminal: a line, a password (not echoed), a yes/no. Only on a terminal: a
// script gets a clear error asking for the option instead of a prompt that never ends.
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { CliError, type CliIo } from './io.js';

function requireTerminal(io: CliIo, instead: string): void {
  if (!io.stdin.isTTY) throw new CliError(`no terminal to ask on: ${instead}`, 2);
}

async function ask(io: CliIo, question: string, hidden: boolean): Promise<string> {
  let muted = false;
  // While muted, what readline echoes (the typed password) is swallowed; the question itself is written first.
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) io.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: io.stdin, output, terminal: true });
  try {
    const answer = rl.question(question);
    muted = hidden;
    return await answer;
  } finally {
    rl.close();
    if (hidden) io.stderr.write('\n');
  }
}

export async function askLine(io: CliIo, question: string, instead: string): Promise<string> {
  requireTerminal(io, instead);
  return (await ask(io, question, false)).trim();
}

export async function askPassword(io: CliIo, question: string, instead: string): Promise<string> {
  requireTerminal(io, instead);
  return ask(io, question, true);
}

/** Yes only for y or yes. */
export async function confirm(io: CliIo, question: string, instead: string): Promise<boolean> {
  requireTerminal(io, instead);
  return /^y(es)?$/i.test((await ask(io, `${question} [y/N] `, false)).trim());
}
