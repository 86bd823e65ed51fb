// The test harness, loaded on demand (console/src/harness/).
import { useLoad } from '../load.js';
import { messageOf } from '../ui.js';

export function HarnessPage({ apiKey }: { apiKey: string }) {
  const mod = useLoad(() => import('../harness/harness-page.js'), []);
  if (mod.error !== undefined) return <p class="error">{messageOf(mod.error)}</p>;
  if (!mod.data) return <p role="status">Loading…</p>;
  const Page = mod.data.default;
  return <Page apiKey={apiKey} />;
}
