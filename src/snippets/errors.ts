// Errors of running admin snippets on the nosql server (docs/cloud-code.md, "Snippets"); they join the one catalogue.
import { def, entriesOf } from '../errors.js';

export const snippetErrors = {
  groupDenied: def(
    'SNIPPET_GROUP_DENIED',
    403,
    "The snippet is restricted to groups (its `groups`) and the caller is in none of them (the game's owner runs every snippet).",
    (shortCode: string) => `Snippet ${shortCode} is restricted to groups the caller is not in`,
  ),
};

export const snippetsCatalogue = entriesOf(snippetErrors);
