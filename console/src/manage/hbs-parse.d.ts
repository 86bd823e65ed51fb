// The Handlebars parser alone (no compiler: the console's Content-Security-Policy forbids eval).
declare module 'handlebars/lib/handlebars/compiler/base.js' {
  export function parse(input: string): import('./handlebars.js').Program;
}
