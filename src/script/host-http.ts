// Spark.getHttp(url): outbound HTTP from scripts, the host side. Only hosts listed in PLAYBASE_SCRIPT_HTTP_ALLOW
// are reached (none by default); redirects are followed by hand, each target checked against the same list; one
// call waits at most its timeout (default and most 10 s, and never past the execution's time budget, so a script
// that runs out of time does not hold its execution open) and reads at most 1 MiB of answer. The script waits for the answer, as the original's calls did.
import type { Session } from './session.js';

export interface HttpSettings {
  /** Hosts scripts may call: `api.example.com`, `api.example.com:8443`, `*.example.com` (lowercase). */
  allow: readonly string[];
}

export const HTTP_TIMEOUT_MS = 10_000;
export const HTTP_MAX_RESPONSE = 1024 * 1024;
const MAX_REQUEST = 1024 * 1024;
const MAX_REDIRECTS = 5;
const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE']);

function allowed(url: URL, allow: readonly string[]): boolean {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allow.some((entry) => {
    const [name, only] = entry.startsWith('[')
      ? [entry.slice(1, entry.indexOf(']')), entry.split(']:')[1]]
      : entry.split(':');
    if (only !== undefined && only !== port) return false;
    if (name?.startsWith('*.')) return host.endsWith(name.slice(1));
    return host === name;
  });
}

function target(raw: string, allow: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`getHttp: not a URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`getHttp: only http and https URLs are allowed, not ${url.protocol}`);
  if (url.username || url.password)
    throw new Error('getHttp: put credentials in setBasicAuth, not in the URL');
  if (!allowed(url, allow))
    throw new Error(`getHttp: the host ${url.host} is not allowed (PLAYBASE_SCRIPT_HTTP_ALLOW)`);
  return url;
}

async function readCapped(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > HTTP_MAX_RESPONSE) {
      await reader.cancel().catch(() => {});
      throw new Error(`getHttp: the answer is larger than ${HTTP_MAX_RESPONSE} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function headersOf(a: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const given = a.headers && typeof a.headers === 'object' ? (a.headers as Record<string, unknown>) : {};
  for (const [k, v] of Object.entries(given)) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}

/** One HTTP call of a script: `{code, headers, body}`; a refused host, a timeout or an oversized answer throws. */
export async function httpCall(session: Session, a: Record<string, unknown>): Promise<string> {
  const allow = session.env.http?.allow ?? [];
  let method = String(a.method ?? 'GET').toUpperCase();
  if (!METHODS.has(method)) throw new Error(`getHttp: no method ${method.slice(0, 20)}`);
  let url = target(String(a.url ?? ''), allow);
  let body = typeof a.body === 'string' ? a.body : undefined;
  if (body !== undefined && Buffer.byteLength(body) > MAX_REQUEST)
    throw new Error(`getHttp: a request body is at most ${MAX_REQUEST} bytes`);
  const asked = Number(a.timeout);
  const budget = session.env.timeLimitMs;
  const left = budget === undefined ? HTTP_TIMEOUT_MS : budget - (performance.now() - session.started);
  const timeout = Math.max(
    1,
    Math.round(
      Math.min(Number.isFinite(asked) && asked > 0 ? asked : HTTP_TIMEOUT_MS, HTTP_TIMEOUT_MS, left),
    ),
  );
  const signal = AbortSignal.timeout(timeout);
  const headers = headersOf(a);
  try {
    for (let hop = 0; ; hop++) {
      const res = await fetch(url, {
        method,
        headers,
        ...(body !== undefined && method !== 'GET' ? { body } : {}),
        redirect: 'manual',
        signal,
      });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location !== null) {
        await res.body?.cancel().catch(() => {});
        if (hop >= MAX_REDIRECTS) throw new Error(`getHttp: more than ${MAX_REDIRECTS} redirects`);
        const next = target(new URL(location, url).toString(), allow);
        // Credentials never follow a redirect to another host.
        if (next.host !== url.host)
          for (const k of Object.keys(headers)) if (/^authorization$/i.test(k)) delete headers[k];
        if (res.status === 303) {
          method = 'GET';
          body = undefined;
        }
        url = next;
        continue;
      }
      const text = await readCapped(res);
      const out: Record<string, string | string[]> = Object.fromEntries(res.headers);
      const cookies = res.headers.getSetCookie();
      if (cookies.length > 0) out['set-cookie'] = cookies;
      return JSON.stringify({ code: res.status, headers: out, body: text });
    }
  } catch (e) {
    if ((e as Error).name === 'TimeoutError' || signal.aborted)
      throw new Error(`getHttp: no answer from ${url.host} within ${timeout} ms`);
    if ((e as Error).message.startsWith('getHttp:')) throw e;
    throw new Error(`getHttp: ${url.host}: ${(e as Error).message}`);
  }
}
