// Handlebars templates of Manage snippets, rendered without eval: the handlebars package's parser makes the AST and
// this file walks it (the package's compiler makes JavaScript source and runs it with new Function, which the
// console's Content-Security-Policy, script-src 'self', refuses). {{x}} is HTML-escaped, {{{x}}} is not (the
// output is sanitized after anyway). Helpers: if, unless, each, with, lookup and the original's get, math,
// compare, json. Partials and decorators are not supported (rendered as nothing).
import { parse } from 'handlebars/lib/handlebars/compiler/base.js';

/* The AST shapes this walker reads (handlebars/types). */
export interface Program {
  type: 'Program';
  body: Node[];
}
interface Node {
  type: string;
  [k: string]: unknown;
}
interface PathNode extends Node {
  original: string;
  parts: string[];
  data: boolean;
  depth: number;
}
interface CallNode extends Node {
  path: Node;
  params: Node[];
  hash?: { pairs: { key: string; value: Node }[] };
}

interface Frame {
  ctx: unknown;
  data: Record<string, unknown>;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#x27;',
  '`': '&#x60;',
  '=': '&#x3D;',
};
export const escapeHtml = (s: string) => s.replace(/[&<>"'`=]/g, (c) => ESCAPES[c] ?? c);

const text = (v: unknown): string =>
  v === undefined || v === null || v === false ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
const truthy = (v: unknown) => !(!v || (Array.isArray(v) && v.length === 0));

function compare(a: unknown, op: unknown, b: unknown): boolean {
  switch (op) {
    case '==':
      // biome-ignore lint/suspicious/noDoubleEquals: the original helper's loose comparison
      return a == b;
    case '===':
      return a === b;
    case '!=':
      // biome-ignore lint/suspicious/noDoubleEquals: the original helper's loose comparison
      return a != b;
    case '!==':
      return a !== b;
    case '<':
      return (a as number) < (b as number);
    case '>':
      return (a as number) > (b as number);
    case '<=':
      return (a as number) <= (b as number);
    case '>=':
      return (a as number) >= (b as number);
    case 'typeof':
      return typeof a === b;
    default:
      throw new Error(`compare: unknown operator ${String(op)}`);
  }
}

function math(a: unknown, op: unknown, b: unknown): number {
  const x = Number(a);
  const y = Number(b);
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    case '%':
      return x % y;
    default:
      throw new Error(`math: unknown operator ${String(op)}`);
  }
}

const own = (o: unknown, key: string): unknown =>
  o !== null && typeof o === 'object' && Object.hasOwn(o, key)
    ? (o as Record<string, unknown>)[key]
    : undefined;

/** Simple helpers: called with their evaluated parameters. */
const SIMPLE: Record<string, (...args: unknown[]) => unknown> = {
  get: (key, obj) => own(obj, String(key)),
  lookup: (obj, key) => own(obj, String(key)),
  math,
  json: (v) => JSON.stringify(v ?? null),
};
const BLOCKS = new Set(['if', 'unless', 'each', 'with', 'compare']);

class Walker {
  private stack: Frame[];

  constructor(root: unknown) {
    this.stack = [{ ctx: root, data: { root } }];
  }

  private get top(): Frame {
    return this.stack[this.stack.length - 1] as Frame;
  }

  program(p: Program | undefined, frame?: Frame): string {
    if (!p) return '';
    if (frame) this.stack.push(frame);
    try {
      return p.body.map((n) => this.node(n)).join('');
    } finally {
      if (frame) this.stack.pop();
    }
  }

  private node(n: Node): string {
    switch (n.type) {
      case 'ContentStatement':
        return n.value as string;
      case 'MustacheStatement': {
        const v = this.call(n as CallNode);
        return n.escaped === false ? text(v) : escapeHtml(text(v));
      }
      case 'BlockStatement':
        return this.block(n as CallNode);
      default:
        return ''; // comments, partials, decorators
    }
  }

  private path(p: PathNode): unknown {
    if (p.data) {
      const [head, ...rest] = p.parts;
      return rest.reduce((o, k) => own(o, k), this.top.data[head as string]);
    }
    const frame = this.stack[Math.max(0, this.stack.length - 1 - p.depth)] as Frame;
    return p.parts.reduce((o, k) => own(o, k), frame.ctx);
  }

  private value(n: Node): unknown {
    switch (n.type) {
      case 'PathExpression':
        return this.path(n as PathNode);
      case 'StringLiteral':
      case 'NumberLiteral':
      case 'BooleanLiteral':
        return n.value;
      case 'NullLiteral':
        return null;
      case 'SubExpression':
        return this.call(n as CallNode);
      default:
        return undefined;
    }
  }

  private name(n: CallNode): string | undefined {
    const p = n.path as PathNode;
    return p.type === 'PathExpression' && !p.data && p.depth === 0 && p.parts.length === 1
      ? p.parts[0]
      : undefined;
  }

  private call(n: CallNode): unknown {
    const name = this.name(n);
    const helper = name !== undefined ? SIMPLE[name] : undefined;
    if (helper) return helper(...n.params.map((x) => this.value(x)));
    if (name === 'compare') {
      const [a, op, b] = n.params.map((x) => this.value(x));
      return compare(a, op, b);
    }
    return this.value(n.path);
  }

  private block(n: CallNode): string {
    const name = this.name(n);
    const program = n.program as Program | undefined;
    const inverse = n.inverse as Program | undefined;
    const params = n.params.map((x) => this.value(x));
    const at = (ctx: unknown, data: Record<string, unknown> = {}): Frame => ({
      ctx,
      data: { ...this.top.data, ...data },
    });
    if (name && BLOCKS.has(name)) {
      switch (name) {
        case 'if':
          return truthy(params[0]) ? this.program(program) : this.program(inverse);
        case 'unless':
          return truthy(params[0]) ? this.program(inverse) : this.program(program);
        case 'compare':
          return compare(params[0], params[1], params[2]) ? this.program(program) : this.program(inverse);
        case 'with':
          return truthy(params[0]) ? this.program(program, at(params[0])) : this.program(inverse);
        case 'each':
          return this.each(params[0], program, inverse, at);
      }
    }
    // A plain section: {{#list}}...{{/list}} iterates an array, enters an object, tests anything else.
    const v = n.params.length === 0 ? this.value(n.path) : undefined;
    if (Array.isArray(v)) return this.each(v, program, inverse, at);
    if (!truthy(v)) return this.program(inverse);
    return this.program(program, typeof v === 'object' ? at(v) : undefined);
  }

  private each(
    list: unknown,
    program: Program | undefined,
    inverse: Program | undefined,
    at: (ctx: unknown, data?: Record<string, unknown>) => Frame,
  ): string {
    const entries: [string | number, unknown][] = Array.isArray(list)
      ? list.map((v, i) => [i, v])
      : list && typeof list === 'object'
        ? Object.entries(list)
        : [];
    if (entries.length === 0) return this.program(inverse);
    return entries
      .map(([key, v], i) =>
        this.program(program, at(v, { index: i, key, first: i === 0, last: i === entries.length - 1 })),
      )
      .join('');
  }
}

/** Parses once; throws the parser's message on a malformed template. */
export function compileTemplate(source: string): (context: unknown) => string {
  const ast = parse(source);
  return (context) => new Walker(context).program(ast);
}

export function renderTemplate(source: string, context: unknown): string {
  return compileTemplate(source)(context);
}
