// Routes of the game configuration, /restv2/game/{apiKey}/config/**: one registrar for the config role.
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { registerWholeConfigRoutes } from './config-routes.js';
import { registerEntityRoutes } from './entity-routes.js';
import { registerEventRoutes } from './events-routes.js';
import { registerScriptRoutes } from './scripts-routes.js';

export function registerConfigRoutes(app: App, ctx: Context): void {
  registerWholeConfigRoutes(app, ctx);
  registerEventRoutes(app, ctx);
  registerEntityRoutes(app, ctx);
  registerScriptRoutes(app, ctx);
}
