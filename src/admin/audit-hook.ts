// The audit log's declarations, checked when routes register: every write route declares the audit area its URL
// implies (config.audit), and its service records the entry itself, in the write's transaction with the before
// and after it holds (config.auditInline). No entry is made after the fact, outside the write.
import type { App } from '../route/app.js';
import { isWriteMethod } from '../route/policy.js';
import { redactPath, redactSecrets } from '../store/audit.js';

// Where the redaction lived before the services wrote their own entries; its unit test reads it here.
export { redactPath, redactSecrets };

const GAME = '/restv2/game/:apiKey';

/**
 * The area the URL tree puts a route in, or undefined for routes that are not audited (runtime data,
 * discovery...). Not read per request: the hook checks at registration that each write route declares this area.
 */
export function auditAreaOf(route: string): string | undefined {
  if (route.startsWith('/restv2/auth/') || route === '/restv2/auth') return 'auth';
  if (route.startsWith('/restv2/games')) return 'game';
  // The nosql server's player and leaderboard management (docs/players.md) and snippet runs (docs/cloud-code.md),
  // under a stage base URL.
  const staged = /^\/(?:live|preview)\/restv2\/game\/:gameApiKey\/(players|leaderboards|manage)(?:\/|$)/.exec(
    route,
  );
  if (staged) return staged[1];
  const game = route.replace('/restv2/game/:gameApiKey', GAME);
  if (game === GAME || game === `${GAME}/restore`) return 'game';
  for (const area of ['config', 'admin', 'manage']) {
    if (game === `${GAME}/${area}` || game.startsWith(`${GAME}/${area}/`)) return area;
  }
  return undefined;
}

/** A write route registered without the audit area its URL implies is a mistake caught at start, not a lost entry. */
function checkDeclaredArea(route: {
  url: string;
  method: string | string[];
  config?: { audit?: string; auditInline?: boolean };
}): void {
  if (![route.method].flat().some(isWriteMethod)) return;
  const implied = auditAreaOf(route.url);
  if (implied !== route.config?.audit) {
    throw new Error(
      `route ${route.url} declares audit area ${route.config?.audit}, its URL implies ${implied}`,
    );
  }
  if (implied !== undefined && route.config?.auditInline !== true) {
    throw new Error(`route ${route.url} is audited (${implied}) but its service does not record the entry`);
  }
}

/**
 * Registers the check: a write route whose URL implies an audit area must declare it, and declare that its
 * service records the entry (auditInline); a route that would leave its writes unrecorded fails the start.
 */
export function registerAuditHook(app: App): void {
  app.addHook('onRoute', checkDeclaredArea);
}
