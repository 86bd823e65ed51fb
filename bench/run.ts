// `npm run bench [suite ...]`: runs the named suites (all by default) and writes bench/results/<suite>.json.
import { benchAuth } from './auth.js';
import { benchCloudCode } from './cloud-code.js';
import { benchClusters } from './clusters.js';
import { benchExports } from './exports.js';
import { benchFoundation } from './foundation.js';
import { benchHostile } from './hostile.js';
import { benchLimits } from './limits.js';
import { benchNosql } from './nosql.js';
import { benchNosqlOverhead } from './nosql-overhead.js';
import { benchRuntime } from './runtime.js';

const suites: Record<string, () => Promise<void>> = {
  foundation: benchFoundation,
  auth: benchAuth,
  limits: benchLimits,
  nosql: benchNosql,
  'nosql-overhead': benchNosqlOverhead,
  runtime: benchRuntime,
  exports: benchExports,
  hostile: benchHostile,
  clusters: benchClusters,
  'cloud-code': benchCloudCode,
};

const wanted = process.argv.slice(2);
for (const name of wanted.length > 0 ? wanted : Object.keys(suites)) {
  const suite = suites[name];
  if (!suite) throw new Error(`unknown bench suite ${name} (known: ${Object.keys(suites).join(', ')})`);
  console.log(`\n=== bench ${name} ===`);
  await suite();
}
