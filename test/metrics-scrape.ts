// Reads GET /metrics as Prometheus would: the text format parsed into samples, and sums over label subsets.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  status: number;
  contentType: string | null;
  text: string;
  samples: Sample[];
  /** Sum of the samples named `name` whose labels include every pair of `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
  /** The label sets of the samples named `name`. */
  labelsOf(name: string): Record<string, string>[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(LABEL))
      labels[key as string] = unescapeLabel(value as string);
    samples.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return samples;
}

export async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await fetch(`${baseUrl}/metrics`, { headers });
  const text = await res.text();
  const samples = res.status === 200 ? parseExposition(text) : [];
  const matching = (name: string, labels: Record<string, string>) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    text,
    samples,
    sum: (name, labels = {}) => matching(name, labels).reduce((n, s) => n + s.value, 0),
    labelsOf: (name) => matching(name, {}).map((s) => s.labels),
  };
}
