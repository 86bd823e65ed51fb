// What a screen snapshot holds and restores: the game's whole Manage section (screens, snippets, queries).
import { loadManageContent, type ManageContent, replaceManageContent } from './manage.js';
import type { PublishAdapter } from './publish.js';

export const screensAdapter: PublishAdapter = {
  async capture(client, apiKey) {
    return { config: await loadManageContent(client, apiKey), meta: [] };
  },
  async restore(client, apiKey, content, parts, at) {
    if (!parts.config) return undefined;
    const manage = content.config as Partial<ManageContent> | null;
    await replaceManageContent(
      client,
      apiKey,
      { screens: manage?.screens ?? [], snippets: manage?.snippets ?? [], queries: manage?.queries ?? [] },
      at,
    );
    return undefined;
  },
};
