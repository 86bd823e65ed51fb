// The Manage section's page, loaded on demand: its chunk carries the Handlebars parser and DOMPurify.
import { useLoad } from '../load.js';
import { messageOf } from '../ui.js';

export function ManagePage({ apiKey }: { apiKey: string }) {
  const mod = useLoad(() => import('../manage/manage-page.js'), []);
  if (mod.error !== undefined) return <p class="error">{messageOf(mod.error)}</p>;
  if (!mod.data) return <p role="status">Loading…</p>;
  const Page = mod.data.default;
  return <Page apiKey={apiKey} />;
}
