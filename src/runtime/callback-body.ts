// What a callback URL's request gives its script as Spark.getData(): the query string's and the form's fields (a
// name seen once: a string; repeated: an array of strings), and any other body as text in REQUEST_BODY.
export type CallbackData = Record<string, string | string[]>;

function add(data: CallbackData, name: string, value: string): void {
  const had = Object.hasOwn(data, name) ? data[name] : undefined;
  const next = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  // defineProperty: a field named __proto__ is a field, never the object's prototype.
  Object.defineProperty(data, name, { value: next, enumerable: true, writable: true, configurable: true });
}

/** The fields of a multipart/form-data body (files are left out: a callback takes text fields). */
function multipartFields(body: Buffer, contentType: string, data: CallbackData): boolean {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) return false;
  const parts = body.toString('latin1').split(`--${boundary}`);
  for (const part of parts.slice(1)) {
    if (part.startsWith('--')) break;
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined || /\bfilename=/i.test(head)) continue;
    const value = part.slice(split + 4).replace(/\r\n$/, '');
    add(data, Buffer.from(name, 'latin1').toString('utf8'), Buffer.from(value, 'latin1').toString('utf8'));
  }
  return true;
}

/** Spark.getData() of a callback: query fields, then form fields; another body as REQUEST_BODY. */
export function callbackData(
  query: unknown,
  body: Buffer | undefined,
  contentType: string | undefined,
): CallbackData {
  const data: CallbackData = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    for (const one of Array.isArray(value) ? value : [value]) add(data, name, String(one));
  }
  if (!body || body.length === 0) return data;
  const type = (contentType ?? '').toLowerCase();
  if (type.startsWith('application/x-www-form-urlencoded')) {
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) add(data, name, value);
    return data;
  }
  if (type.startsWith('multipart/form-data') && multipartFields(body, contentType ?? '', data)) return data;
  add(data, 'REQUEST_BODY', body.toString('utf8'));
  return data;
}
