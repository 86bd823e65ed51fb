// Benchmark helpers: start processes the way users do, drive them with autocannon, record figures.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface Figure {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** CPU time (user + system) the server process spent per request during the run, when its pid was given. */
  serverCpuMicrosPerRequest?: number;
}

/** CPU seconds (user + system) a process has used, from /proc (Linux); undefined elsewhere. */
function cpuSecondsOf(pid: number): number | undefined {
  try {
    // Fields after the command name (which is in parentheses and may hold spaces): utime and stime are 14 and 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

export async function load(
  name: string,
  options: {
    url: string;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    durationS?: number;
    /** The server's process id, to report its CPU time per request. */
    serverPid?: number;
  },
): Promise<Figure> {
  const cpuBefore = options.serverPid === undefined ? undefined : cpuSecondsOf(options.serverPid);
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body ? { body: options.body } : {}),
    connections: options.connections ?? 32,
    duration: options.durationS ?? Number(process.env.BENCH_SECONDS ?? 5),
  });
  const cpuAfter = options.serverPid === undefined ? undefined : cpuSecondsOf(options.serverPid);
  const figure: Figure = {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
  if (cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0) {
    figure.serverCpuMicrosPerRequest = Math.round(((cpuAfter - cpuBefore) * 1e6) / result.requests.total);
  }
  console.log(
    `${name}: ${figure.requestsPerSecond} req/s, p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms, non-2xx ${figure.non2xx}` +
      (figure.serverCpuMicrosPerRequest === undefined
        ? ''
        : `, server CPU ${figure.serverCpuMicrosPerRequest} µs/request`),
  );
  return figure;
}

export function writeResults(suite: string, data: Record<string, unknown>): string {
  const dir = join(process.cwd(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${suite}.json`);
  const machine = { node: process.version, platform: process.platform, arch: process.arch };
  writeFileSync(
    file,
    `${JSON.stringify({ suite, measuredAt: new Date().toISOString(), machine, ...data }, null, 2)}\n`,
  );
  console.log(`wrote ${file}`);
  return file;
}
