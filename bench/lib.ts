// Benchmark helpers: start processes the way users do, drive them with autocannon, record figures.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface Figure {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** Connections of the load, when not the suite's usual count. */
  connections?: number;
  /** CPU time (user + system) the server process spent per request during the run, when its pid was given. */
  serverCpuMicrosPerRequest?: number;
  /** CPU time the load generator (this process) spent per request: near one core's worth, it is the bottleneck. */
  clientCpuMicrosPerRequest?: number;
}

/** CPU ticks (user + system, 1/100 s) of a /proc stat file (Linux); undefined when it cannot be read. */
function ticksOf(statPath: string): number | undefined {
  try {
    // Fields after the command name (which is in parentheses and may hold spaces): utime and stime are 14 and 15.
    const stat = readFileSync(statPath, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used, from /proc (Linux); undefined elsewhere. */
function cpuSecondsOf(pid: number): number | undefined {
  const ticks = ticksOf(`/proc/${pid}/stat`);
  return ticks === undefined ? undefined : ticks / 100;
}

/** Where the machine's CPU went, in ticks: the server's event loop, its other threads, PostgreSQL, this process. */
export interface CpuSnapshot {
  eventLoop: number;
  otherThreads: number;
  postgres: number;
  client: number;
}

/**
 * A snapshot of the CPU used so far by the server (its main thread, which runs the event loop, apart from its
 * other threads: sandbox, compute and the embedded store's), every PostgreSQL process on the machine (backends
 * exiting during a run are lost, so keep the pool open) and this process (the load generator). Linux only.
 */
export function cpuSnapshot(serverPid: number): CpuSnapshot {
  const all = ticksOf(`/proc/${serverPid}/stat`) ?? 0;
  const eventLoop = ticksOf(`/proc/${serverPid}/task/${serverPid}/stat`) ?? 0;
  let postgres = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        postgres += ticksOf(`/proc/${entry}/stat`) ?? 0;
    } catch {
      // gone meanwhile
    }
  }
  const c = process.cpuUsage();
  return { eventLoop, otherThreads: all - eventLoop, postgres, client: (c.user + c.system) / 1e4 };
}

/** CPU µs per request of each part between two snapshots. */
export function cpuPerRequest(
  a: CpuSnapshot,
  b: CpuSnapshot,
  requests: number,
): Record<keyof CpuSnapshot, number> {
  const per = (k: keyof CpuSnapshot) => Math.round(((b[k] - a[k]) * 1e4) / Math.max(1, requests));
  return {
    eventLoop: per('eventLoop'),
    otherThreads: per('otherThreads'),
    postgres: per('postgres'),
    client: per('client'),
  };
}

/**
 * Puts the server process on the last CPU and this process (the load generator) on the others, so that the two
 * do not take turns on one core: the server's throughput then measures the server alone. Linux with taskset and
 * two CPUs or more; elsewhere nothing is pinned. Returns a description of what was done, for the results file.
 */
export function pinApart(serverPid: number): string {
  const cpus = availableParallelism();
  if (process.platform !== 'linux' || cpus < 2) return 'not pinned (needs Linux and two CPUs)';
  const last = String(cpus - 1);
  const others = cpus === 2 ? '0' : `0-${cpus - 2}`;
  try {
    // -a: every thread (libuv's pool, V8's helpers, tsx's worker) follows.
    execFileSync('taskset', ['-a', '-p', '-c', last, String(serverPid)], { stdio: 'ignore' });
    execFileSync('taskset', ['-a', '-p', '-c', others, String(process.pid)], { stdio: 'ignore' });
    return `server pinned to CPU ${last}, load generator to CPU ${others}`;
  } catch {
    return 'not pinned (taskset failed or is missing)';
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
    /** Requests per second across all connections (an open-loop load); unset: as fast as the server answers. */
    overallRate?: number;
    durationS?: number;
    /** The server's process id, to report its CPU time per request. */
    serverPid?: number;
  },
): Promise<Figure> {
  const cpuBefore = options.serverPid === undefined ? undefined : cpuSecondsOf(options.serverPid);
  const clientBefore = process.cpuUsage();
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body ? { body: options.body } : {}),
    connections: options.connections ?? 32,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    duration: options.durationS ?? Number(process.env.BENCH_SECONDS ?? 5),
  });
  const cpuAfter = options.serverPid === undefined ? undefined : cpuSecondsOf(options.serverPid);
  const client = process.cpuUsage(clientBefore);
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
    figure.clientCpuMicrosPerRequest = Math.round((client.user + client.system) / result.requests.total);
  }
  console.log(
    `${name}: ${figure.requestsPerSecond} req/s, p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms, non-2xx ${figure.non2xx}` +
      (figure.serverCpuMicrosPerRequest === undefined
        ? ''
        : `, server CPU ${figure.serverCpuMicrosPerRequest} µs/request, client ${figure.clientCpuMicrosPerRequest}`),
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
