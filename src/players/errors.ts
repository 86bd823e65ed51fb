// Errors of the player and leaderboard management API (docs/players.md); they join the one catalogue.
import { def, entriesOf } from '../errors.js';

export const playersErrors = {
  playerNotFound: def(
    'PLAYER_NOT_FOUND',
    404,
    'No player has this id in this stage (players are per stage: a Preview id is unknown in Live).',
    (id: string) => `Player ${id} not found in this stage`,
  ),
  leaderboardNotFound: def(
    'LEADERBOARD_NOT_IN_STAGE',
    404,
    "The stage's configuration has no leaderboard of this short code, or the partition code (LB.ATTR.VALUE) does not fit its partitions; Live runs the published snapshot's leaderboards.",
    (code: string) => `Leaderboard ${code} not found in this stage`,
  ),
  entryNotFound: def(
    'LEADERBOARD_ENTRY_NOT_FOUND',
    404,
    "The player has no entry on the leaderboard's (or partition's) board of the current period.",
    (code: string, playerId: string) => `Player ${playerId} has no entry on ${code}`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const playersCatalogue = entriesOf(playersErrors);
