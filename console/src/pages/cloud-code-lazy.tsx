// The Cloud Code page is its own chunk (CodeMirror, the Spark API's completion, the zip reader): the main bundle
// stays small and the editor is fetched when the page opens.
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../ui.js';

export function CloudCodeLazy({ apiKey }: { apiKey: string }) {
  const [Page, setPage] = useState<FunctionComponent<{ apiKey: string }>>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    import('./cloud-code.js').then((m) => setPage(() => m.CloudCodePage), setError);
  }, []);
  if (error !== undefined) return <p class="error">{messageOf(error)}</p>;
  if (!Page)
    return (
      <p role="status" aria-live="polite">
        Loading the editor…
      </p>
    );
  return <Page apiKey={apiKey} />;
}
