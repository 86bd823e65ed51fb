// pg's value preparation (what it does to every bind value before sending it), used by compute threads.
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): unknown };
  export default utils;
}
