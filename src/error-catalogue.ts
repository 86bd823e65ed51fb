// The one error catalogue as a static list: every code, status and description the API can answer. It is
// joined from each module's own list (its errors.ts, which imports nothing but src/errors.ts), so the error
// reference (docs/errors.md) and the uniqueness test read it without loading any room or building a server.

import { adminCatalogue } from './admin/errors.js';
import { authCatalogue } from './auth/errors.js';
import { clusterCatalogue } from './cluster/errors.js';
import { configCatalogue } from './config/errors.js';
import { pushCatalogue } from './config/push/errors.js';
import { type CatalogueEntry, foundationCatalogue } from './errors.js';
import { limitsCatalogue } from './limits/errors.js';
import { metricsCatalogue } from './metrics/errors.js';
import { dataCatalogue } from './nosql/data-errors.js';
import { nosqlCatalogue } from './nosql/errors.js';
import { exportCatalogue } from './nosql/export/errors.js';
import { importCatalogue } from './nosql/import/errors.js';
import { playersCatalogue } from './players/errors.js';
import { queryCatalogue } from './query/errors.js';
import { pipelineCatalogue } from './query/pipeline-errors.js';
import { updateCatalogue } from './query/update-errors.js';
import { runtimeCatalogue } from './runtime/errors.js';
import { snippetsCatalogue } from './snippets/errors.js';

/** Every defined code, for the generated reference and the uniqueness test. */
export const catalogue: readonly CatalogueEntry[] = [
  ...foundationCatalogue,
  ...authCatalogue,
  ...limitsCatalogue,
  ...metricsCatalogue,
  ...configCatalogue,
  ...adminCatalogue,
  ...pushCatalogue,
  ...nosqlCatalogue,
  ...dataCatalogue,
  ...exportCatalogue,
  ...importCatalogue,
  ...queryCatalogue,
  ...pipelineCatalogue,
  ...updateCatalogue,
  ...runtimeCatalogue,
  ...clusterCatalogue,
  ...playersCatalogue,
  ...snippetsCatalogue,
];
