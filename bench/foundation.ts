// Foundation figure: GET /healthz on a Playbase process against a bare Fastify route, measured in one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnPlaybase, waitReady } from '../test/processes.js';
import { load, writeResults } from './lib.js';

export async function benchFoundation(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-bench-'));
  const playbase = spawnPlaybase({
    PORT: String(await freePort()),
    PLAYBASE_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  });
  const barePort = String(await freePort());
  const bare = spawnPlaybase({ PORT: barePort }, 'bench/bare-server.ts');
  try {
    await waitReady(playbase.url);
    while (!bare.output().includes('ready')) await new Promise((r) => setTimeout(r, 50));
    // Warm both up, then measure alternately so machine noise hits both alike.
    await load('warm-up playbase', { url: `${playbase.url}/healthz`, durationS: 2 });
    await load('warm-up bare', { url: `http://127.0.0.1:${barePort}/healthz`, durationS: 2 });
    const pb = await load('playbase GET /healthz', { url: `${playbase.url}/healthz` });
    const base = await load('bare fastify GET /healthz', { url: `http://127.0.0.1:${barePort}/healthz` });
    const ratio = Number((pb.requestsPerSecond / base.requestsPerSecond).toFixed(3));
    console.log(`ratio playbase/bare = ${ratio}`);
    writeResults('foundation', { figures: [pb, base], ratioPlaybaseToBare: ratio });
  } finally {
    playbase.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    await Promise.all([playbase.exited, bare.exited]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
