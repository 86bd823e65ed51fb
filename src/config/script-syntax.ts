// Syntax of Cloud Code sources: parsed with acorn (ES2020, classic scripts) when a script is written, so that a
// script that cannot run is refused with its line and column instead of failing at its first execution.
import { Parser } from 'acorn';
import type { CloudScript } from './config-types.js';
import { configErrors } from './errors.js';

/**
 * ES2020 accepts what the original platform ran (ES5, with `const`/`let`) and what the sandbox runs besides
 * (arrow functions, classes, template strings, `?.`, `??`); a script is a classic script, not a module (no
 * `import`/`export`, no top-level `return` or `await`).
 */
const ECMA_VERSION = 2020;

export interface SyntaxProblem {
  message: string;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units as editors count them. */
  column: number;
}

/** The first syntax error of `source`, or undefined when it parses. */
export function syntaxProblem(source: string): SyntaxProblem | undefined {
  try {
    Parser.parse(source, { ecmaVersion: ECMA_VERSION, sourceType: 'script', locations: false });
    return undefined;
  } catch (e) {
    // A nesting deeper than the stack (acorn usually says so itself, as a SyntaxError) is a script that cannot run.
    if (e instanceof RangeError) return { message: 'nesting too deep to parse', line: 1, column: 1 };
    const err = e as SyntaxError & { loc?: { line: number; column: number } };
    if (!(err instanceof SyntaxError) || !err.loc) throw e;
    // acorn appends " (line:column)" to its message; the detail carries them as fields.
    const message = err.message.replace(/ \(\d+:\d+\)$/, '');
    return { message, line: err.loc.line, column: err.loc.column + 1 };
  }
}

/**
 * Throws SCRIPT_SYNTAX_ERROR naming every script of `scripts` that does not parse (`field` says where each one is).
 * One script is parsed per turn of the event loop: a large set of scripts never holds other requests for longer
 * than the parse of one (at most SCRIPT_LIMITS.scriptBytes).
 */
export async function assertScriptsParse(
  scripts: readonly { script: CloudScript; field: string }[],
): Promise<void> {
  const details = [];
  for (const [i, { script, field }] of scripts.entries()) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    const problem = syntaxProblem(script.script);
    if (problem) details.push({ field, folder: script.folder, shortCode: script.shortCode, ...problem });
  }
  const first = details[0];
  if (!first) return;
  throw configErrors.syntax(
    `${first.folder}/${first.shortCode}:${first.line}:${first.column}: ${first.message}`,
    details,
  );
}
