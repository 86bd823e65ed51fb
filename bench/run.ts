// `npm run bench [suite ...]`: runs the named suites (all by default) and writes bench/results/<suite>.json.
import { benchFoundation } from './foundation.js';
import { benchLimits } from './limits.js';

const suites: Record<string, () => Promise<void>> = {
  foundation: benchFoundation,
  limits: benchLimits,
};

const wanted = process.argv.slice(2);
for (const name of wanted.length > 0 ? wanted : Object.keys(suites)) {
  const suite = suites[name];
  if (!suite) throw new Error(`unknown bench suite ${name} (known: ${Object.keys(suites).join(', ')})`);
  console.log(`\n=== bench ${name} ===`);
  await suite();
}
