// Helpers to run Playbase the way a user does: a separate `node` process on its own port.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export interface Running {
  child: ChildProcess;
  output: () => string;
  url: string;
  exited: Promise<number | null>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export function spawnPlaybase(
  env: Record<string, string>,
  script = 'src/main.ts',
  nodeArgs: string[] = [],
): Running {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const scheme = env.TLS_CERT_FILE ? 'https' : 'http';
  return { child, output: () => out, url: `${scheme}://127.0.0.1:${env.PORT}`, exited };
}

export async function waitReady(url: string, timeoutMs = 60_000): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return Date.now() - start;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

/** A fresh schema on the test PostgreSQL and a DATABASE_URL that works in it, for several processes to share. */
export async function sharedPostgres(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { randomBytes } = await import('node:crypto');
  const pg = (await import('pg')).default;
  const schema = `p_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

export async function stopAll(processes: Running[]): Promise<void> {
  for (const p of processes) p.child.kill('SIGTERM');
  await Promise.all(processes.map((p) => p.exited));
}
