// The OpenAPI document as TypeScript types: generated from docs/openapi.json by `npm run openapi`
// (openapi-typescript). Do not edit; a test fails when it differs from the document.

export interface paths {
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics of this process (text format); Bearer PLAYBASE_METRICS_TOKEN, or loopback clients when unset (docs/metrics.md) */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is up */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The store answers and migrations are done (on a runtime cluster: its replica has caught up, or serves its stored state while the feed is unreachable; the answer carries the replica's lag) */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Log in: an access token */
        get: operations["login"];
        put?: never;
        post?: never;
        /** Log out: revoke this access token */
        delete: operations["logout"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/user/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Check an access token (used by split config servers) */
        get: operations["checkAccessToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/user/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Change my password (ends my other sessions) */
        put: operations["changePassword"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/user/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Log out everywhere: end every access token and JWT of my account, this one included */
        delete: operations["endSessions"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/game/{apiKey}/jwt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A JWT for this game */
        get: operations["getJwt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/game/{apiKey}/jwt/{filter}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A JWT limited to one scope (nosql, config, admin) */
        get: operations["getScopedJwt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public keys that verify JWTs */
        get: operations["getJwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/keys/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the JWT signing key */
        post: operations["rotateSigningKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List accounts (administrator) */
        get: operations["listAccounts"];
        put?: never;
        /** Create an account (administrator) */
        post: operations["createAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/users/{username}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an account (administrator) */
        get: operations["getAccount"];
        /** Disable, enable or reset the password of an account (administrator) */
        put: operations["updateAccount"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/games": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's games (as GET /restv2/games) */
        get: operations["listAuthGames"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The permission catalogue and scopes */
        get: operations["getPermissionCatalogue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/game/{apiKey}/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's effective permissions */
        get: operations["getGamePermissions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/game/{apiKey}/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The game's groups */
        get: operations["listGroups"];
        put?: never;
        /** Create a group */
        post: operations["createGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/game/{apiKey}/groups/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a group */
        get: operations["getGroup"];
        /** Replace a group's permissions */
        put: operations["updateGroup"];
        post?: never;
        /** Delete a group */
        delete: operations["deleteGroup"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/game/{apiKey}/collaborators": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The game's collaborators */
        get: operations["listCollaborators"];
        put?: never;
        /** Add a collaborator (an existing account) with groups */
        post: operations["addCollaborator"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/game/{apiKey}/collaborators/{email}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a collaborator */
        get: operations["getCollaborator"];
        /** Replace a collaborator's groups */
        put: operations["updateCollaborator"];
        post?: never;
        /** Remove a collaborator */
        delete: operations["removeCollaborator"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/auth/game/{apiKey}/owner": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Transfer ownership (owner only) */
        put: operations["transferOwnership"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/games": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's games */
        get: operations["listGames"];
        put?: never;
        /** Create a game (the caller owns it) */
        post: operations["createGame"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/games/deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's games in the recycle bin */
        get: operations["listDeletedGames"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a game */
        get: operations["getGame"];
        put?: never;
        post?: never;
        /** Move the game to the recycle bin (10 days) */
        delete: operations["deleteGame"];
        options?: never;
        head?: never;
        /** Rename a game */
        patch: operations["renameGame"];
        trace?: never;
    };
    "/restv2/game/{apiKey}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Bring a game back from the recycle bin (owner) */
        post: operations["restoreGame"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{gameApiKey}/endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Endpoint discovery: base URLs of the Live and Preview runtime data servers */
        get: operations["getEndpoints"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The configuration: top-level entities and version, or with ?full=true the whole document */
        get: operations["getConfig"];
        /** Replace the whole configuration (validated first, applied atomically) */
        put: operations["replaceConfig"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List server credentials (never their secrets) */
        get: operations["listCredentials"];
        put?: never;
        /** Create a server credential; the answer shows its secret, this once */
        post: operations["createCredential"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~credentials/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a server credential */
        get: operations["getCredential"];
        put?: never;
        post?: never;
        /** Delete a server credential */
        delete: operations["deleteCredential"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~credentials/{name}/resetSecret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Give a credential a new secret, shown this once */
        post: operations["resetCredentialSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~pushCredentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Configured push credentials: identifiers only, never keys */
        get: operations["getPushCredentials"];
        /** Replace the APNs / FCM credentials ({} removes them); stored sealed */
        put: operations["replacePushCredentials"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List events */
        get: operations["listEvents"];
        put?: never;
        /** Create an event (with or without ~attributes) */
        post: operations["createEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~events/{eventShortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an event */
        get: operations["getEvent"];
        /** Update an event: only the fields sent change (~attributes sent replaces the list) */
        put: operations["updateEvent"];
        post?: never;
        /** Delete an event */
        delete: operations["deleteEvent"];
        options?: never;
        head?: never;
        /** Update an event: only the fields sent change (~attributes sent replaces the list) */
        patch: operations["patchEvent"];
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~events/{eventShortCode}/~attributes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List an event's attributes */
        get: operations["listAttributes"];
        put?: never;
        /** Add an attribute to an event */
        post: operations["createAttribute"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~events/{eventShortCode}/~attributes/{attributeShortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an attribute */
        get: operations["getAttribute"];
        /** Update an attribute: only the fields sent change */
        put: operations["updateAttribute"];
        post?: never;
        /** Delete an attribute */
        delete: operations["deleteAttribute"];
        options?: never;
        head?: never;
        /** Update an attribute: only the fields sent change */
        patch: operations["patchAttribute"];
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~runningTotals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List running totals */
        get: operations["listRunningTotals"];
        put?: never;
        /** Create a running total */
        post: operations["createRunningTotal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~runningTotals/{shortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a running total */
        get: operations["getRunningTotal"];
        /** Update a running total: only the fields sent change */
        put: operations["updateRunningTotal"];
        post?: never;
        /** Delete a running total */
        delete: operations["deleteRunningTotal"];
        options?: never;
        head?: never;
        /** Update a running total: only the fields sent change */
        patch: operations["patchRunningTotal"];
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~leaderboards": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List leaderboards */
        get: operations["listLeaderboards"];
        put?: never;
        /** Create a leaderboard */
        post: operations["createLeaderboard"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~leaderboards/{shortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a leaderboard */
        get: operations["getLeaderboard"];
        /** Update a leaderboard: only the fields sent change */
        put: operations["updateLeaderboard"];
        post?: never;
        /** Delete a leaderboard */
        delete: operations["deleteLeaderboard"];
        options?: never;
        head?: never;
        /** Update a leaderboard: only the fields sent change */
        patch: operations["patchLeaderboard"];
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~indexedTypes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List indexed type (data-service type)s */
        get: operations["listIndexedTypes"];
        put?: never;
        /** Create a indexed type (data-service type) */
        post: operations["createIndexedType"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~indexedTypes/{shortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a indexed type (data-service type) */
        get: operations["getIndexedType"];
        /** Update a indexed type (data-service type): only the fields sent change */
        put: operations["updateIndexedType"];
        post?: never;
        /** Delete a indexed type (data-service type) */
        delete: operations["deleteIndexedType"];
        options?: never;
        head?: never;
        /** Update a indexed type (data-service type): only the fields sent change */
        patch: operations["patchIndexedType"];
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~scripts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Cloud Code scripts (no sources): folder, short code, size and SHA-256 */
        get: operations["listScripts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~scripts/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download the scripts as a zip in the original platform layout (event/, request/, modules/...) */
        get: operations["exportScripts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~scripts/{folder}/{shortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a script and its source */
        get: operations["getScript"];
        /** Create or replace a script (syntax, what its name points at and sizes checked) */
        put: operations["putScript"];
        post?: never;
        /** Delete a script */
        delete: operations["deleteScript"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The audit log of the game: every write, newest first */
        get: operations["listAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/snapshots": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List game snapshots, newest first (first page) */
        get: operations["listSnapshots"];
        put?: never;
        /** Save the working copy as a game snapshot */
        post: operations["createSnapshot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/snapshots/page/{n}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One page of game snapshots (pages start at 1) */
        get: operations["listSnapshotsPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/snapshots/liveSnapshotId": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The game snapshot the Live stage runs (null before the first publish) */
        get: operations["getLiveSnapshotId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/snapshots/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a game snapshot; ?full=true adds its content */
        get: operations["getSnapshot"];
        put?: never;
        post?: never;
        /** Delete a game snapshot (not the one Live runs) */
        delete: operations["deleteSnapshot"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/snapshots/{id}/publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make the game snapshot the one the Live stage runs */
        post: operations["publishSnapshot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/snapshots/{id}/unpublish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Take the game snapshot off Live; Live falls back to the previous published one, or to nothing */
        post: operations["unpublishSnapshot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/snapshots/revert/to/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the working copy with the game snapshot, after saving it as "AUTOSAVE - Pre Revert" */
        post: operations["revertToSnapshot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/snapshots/{id}/copy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Copy the game snapshot into a new game owned by the caller */
        post: operations["copySnapshotToNewGame"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/snapshots/{id}/copy/to/{targetApiKey}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Copy the game snapshot over another game, after saving its working copy as "AUTOSAVE - Pre Copy" */
        post: operations["copySnapshotToGame"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/screens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the screens */
        get: operations["listScreens"];
        put?: never;
        /** Create a screen */
        post: operations["createScreen"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/screens/{shortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a screen */
        get: operations["getScreen"];
        /** Replace a screen */
        put: operations["replaceScreen"];
        post?: never;
        /** Delete a screen */
        delete: operations["deleteScreen"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/snippets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the snippets */
        get: operations["listSnippets"];
        put?: never;
        /** Create a snippet */
        post: operations["createSnippet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/snippets/{shortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a snippet */
        get: operations["getSnippet"];
        /** Replace a snippet */
        put: operations["replaceSnippet"];
        post?: never;
        /** Delete a snippet */
        delete: operations["deleteSnippet"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/queries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the queries */
        get: operations["listQueries"];
        put?: never;
        /** Create a query */
        post: operations["createQuery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/queries/{shortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a query */
        get: operations["getQuery"];
        /** Replace a query */
        put: operations["replaceQuery"];
        post?: never;
        /** Delete a query */
        delete: operations["deleteQuery"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/snapshots": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List screen snapshots, newest first (first page) */
        get: operations["listScreenSnapshots"];
        put?: never;
        /** Save the working copy as a screen snapshot */
        post: operations["createScreenSnapshot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/snapshots/page/{n}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One page of screen snapshots (pages start at 1) */
        get: operations["listScreenSnapshotsPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/snapshots/liveSnapshotId": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The screen snapshot the Live stage runs (null before the first publish) */
        get: operations["getLiveScreenSnapshotId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/snapshots/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a screen snapshot; ?full=true adds its content */
        get: operations["getScreenSnapshot"];
        put?: never;
        post?: never;
        /** Delete a screen snapshot (not the one Live runs) */
        delete: operations["deleteScreenSnapshot"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/snapshots/{id}/publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make the screen snapshot the one the Live stage runs */
        post: operations["publishScreenSnapshot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/snapshots/{id}/unpublish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Take the screen snapshot off Live; Live falls back to the previous published one, or to nothing */
        post: operations["unpublishScreenSnapshot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/snapshots/revert/to/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the working copy with the screen snapshot, after saving it as "AUTOSAVE - Pre Revert" */
        post: operations["revertToScreenSnapshot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/manage/snapshots/{id}/copy/to/{targetApiKey}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Copy the screen snapshot over another game, after saving its working copy as "AUTOSAVE - Pre Copy" */
        post: operations["copyScreenSnapshotToGame"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/pushNotifications/test/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a test push notification with the game’s credentials and report both sides (google) */
        post: operations["sendTestPush"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/admin/pushNotifications/test/{provider}/{environment}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a test push notification with the game’s credentials and report both sides (apple/development, apple/production) */
        post: operations["sendTestPushToEnvironment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/game/{apiKey}/config/~scripts/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make the scripts those of a zip in the export layout (?dryRun=true: answer the changes only) */
        post: operations["importScripts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/internal/clusters/{cluster}/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A runtime cluster's replica feed: the state of every game, account and signing key changed after the cursor (docs/topology.md); Bearer PLAYBASE_CLUSTER_SECRET */
        get: operations["getClusterChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/restv2/internal/clusters/{cluster}/games/{apiKey}/preview-meta": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A game's Preview meta collections as its runtime cluster holds them, for a snapshot taken on the control side (docs/topology.md); Bearer PLAYBASE_CLUSTER_SECRET */
        get: operations["getClusterPreviewMeta"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List collections with their group and allowed actions */
        get: operations["liveListCollections"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Statistics of the game's data in this stage */
        get: operations["liveGetDatabaseStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Statistics of one collection */
        get: operations["liveGetCollectionStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Drop a collection: its documents and indexes */
        delete: operations["liveDropCollection"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/meta": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create the meta collection meta.{collectionName} (Preview only) */
        post: operations["liveCreateMetaCollection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/runtime": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create the runtime collection script.{collectionName} */
        post: operations["liveCreateRuntimeCollection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/find": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Find documents */
        post: operations["liveFindDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/explain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Explain a find: the PostgreSQL plan */
        post: operations["liveExplainFind"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Count matching documents */
        post: operations["liveCountDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/insert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Insert documents (an array, or one document) */
        post: operations["liveInsertDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/save": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Save a document: insert it, or replace the one with its _id */
        post: operations["liveSaveDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Update documents */
        post: operations["liveUpdateDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/remove": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Remove matching documents; {"query": {}} removes all */
        post: operations["liveRemoveDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/aggregate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run an aggregation pipeline */
        post: operations["liveAggregate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/findAndModify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Update or remove the first matching document, answering it before or after */
        post: operations["liveFindAndModify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/distinct": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The different values of a field */
        post: operations["liveDistinct"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/indices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the collection's indexes */
        get: operations["liveListIndexes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/index/{indexName}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an index: the body is its key map, e.g. {"level": -1, "country": 1} */
        post: operations["liveCreateIndex"];
        /** Drop an index */
        delete: operations["liveDropIndex"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List collections with their group and allowed actions */
        get: operations["previewListCollections"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Statistics of the game's data in this stage */
        get: operations["previewGetDatabaseStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Statistics of one collection */
        get: operations["previewGetCollectionStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Drop a collection: its documents and indexes */
        delete: operations["previewDropCollection"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/meta": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create the meta collection meta.{collectionName} (Preview only) */
        post: operations["previewCreateMetaCollection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/runtime": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create the runtime collection script.{collectionName} */
        post: operations["previewCreateRuntimeCollection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/find": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Find documents */
        post: operations["previewFindDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/explain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Explain a find: the PostgreSQL plan */
        post: operations["previewExplainFind"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Count matching documents */
        post: operations["previewCountDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/insert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Insert documents (an array, or one document) */
        post: operations["previewInsertDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/save": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Save a document: insert it, or replace the one with its _id */
        post: operations["previewSaveDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Update documents */
        post: operations["previewUpdateDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/remove": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Remove matching documents; {"query": {}} removes all */
        post: operations["previewRemoveDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/aggregate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run an aggregation pipeline */
        post: operations["previewAggregate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/findAndModify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Update or remove the first matching document, answering it before or after */
        post: operations["previewFindAndModify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/distinct": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The different values of a field */
        post: operations["previewDistinct"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/indices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the collection's indexes */
        get: operations["previewListIndexes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/collection/{collectionName}/index/{indexName}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an index: the body is its key map, e.g. {"level": -1, "country": 1} */
        post: operations["previewCreateIndex"];
        /** Drop an index */
        delete: operations["previewDropIndex"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/data/datatypes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the declared data types */
        get: operations["liveListDataTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/data/{type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete every item of a data type */
        delete: operations["liveDeleteAllItems"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/data/{type}/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Query items on indexed fields */
        post: operations["liveQueryItems"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/data/{type}/{itemId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an item */
        get: operations["liveGetItem"];
        /** Put an item (replaces its data and TTL) */
        put: operations["livePutItem"];
        post?: never;
        /** Delete an item */
        delete: operations["liveDeleteItem"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export the NoSQL collections (gzip NDJSON, canonical extended JSON; passwords, auth tokens and location left out) */
        get: operations["liveExportMongo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/data/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export the data-service items (gzip NDJSON, canonical extended JSON) */
        get: operations["liveExportData"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{game}/export/download/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download an export file through its signed link (local export store) */
        get: operations["liveDownloadExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/mongo/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import a NoSQL export file (gzip NDJSON as downloaded, or NDJSON): all documents or none */
        post: operations["liveImportDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/data/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import a data-service export file (gzip NDJSON, or NDJSON): all items or none */
        post: operations["liveImportDataItems"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/data/datatypes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the declared data types */
        get: operations["previewListDataTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/data/{type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete every item of a data type */
        delete: operations["previewDeleteAllItems"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/data/{type}/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Query items on indexed fields */
        post: operations["previewQueryItems"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/data/{type}/{itemId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an item */
        get: operations["previewGetItem"];
        /** Put an item (replaces its data and TTL) */
        put: operations["previewPutItem"];
        post?: never;
        /** Delete an item */
        delete: operations["previewDeleteItem"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export the NoSQL collections (gzip NDJSON, canonical extended JSON; passwords, auth tokens and location left out) */
        get: operations["previewExportMongo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/data/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export the data-service items (gzip NDJSON, canonical extended JSON) */
        get: operations["previewExportData"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{game}/export/download/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download an export file through its signed link (local export store) */
        get: operations["previewDownloadExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/mongo/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import a NoSQL export file (gzip NDJSON as downloaded, or NDJSON): all documents or none */
        post: operations["previewImportDocuments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/data/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import a data-service export file (gzip NDJSON, or NDJSON): all items or none */
        post: operations["previewImportDataItems"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/players": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search players by user name or display name (prefix, any case), id or external id; paged */
        get: operations["liveSearchPlayers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/players/{playerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One player: names, currencies, scriptData, privateData, external ids, created, last seen, ban */
        get: operations["liveGetPlayer"];
        put?: never;
        post?: never;
        /** Erase the player and everything keyed by it (entries, running totals, data items, devices), in one transaction */
        delete: operations["liveErasePlayer"];
        options?: never;
        head?: never;
        /** Set the display name, currency balances and/or the whole scriptData (audited) */
        patch: operations["liveEditPlayer"];
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/players/{playerId}/ban": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ban the player: its logins answer DETAILS: LOCKED, its other requests playerId: LOCKED */
        post: operations["liveBanPlayer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/players/{playerId}/unban": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Lift the ban */
        post: operations["liveUnbanPlayer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/players/{playerId}/sessions/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reset the player's sessions: clears its login lockout (the runtime stores no session) */
        post: operations["liveResetPlayerSessions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/players/{playerId}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Everything held about the player as one JSON document (audited as players.export) */
        get: operations["liveExportPlayer"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/leaderboards": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The stage's leaderboards: boards of the current period (partitions), entry counts, next reset */
        get: operations["liveListLeaderboards"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/leaderboards/{shortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One leaderboard: its boards (partitions), entry counts, period and next reset */
        get: operations["liveGetLeaderboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/leaderboards/{shortCode}/entries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Entries by rank from offset (0-based): the top entries with the default offset */
        get: operations["liveLeaderboardTopEntries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/leaderboards/{shortCode}/around/{playerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The player's entry with up to `count` entries ahead and behind (empty when it has none) */
        get: operations["liveLeaderboardEntriesAround"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/leaderboards/{shortCode}/entries/{playerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete the player's entry of the current period (audited); its next event makes a fresh one */
        delete: operations["liveDeleteLeaderboardEntry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/restv2/game/{gameApiKey}/leaderboards/{shortCode}/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reset now: delete every board of the leaderboard (or the partition) with its entries (audited) */
        post: operations["liveResetLeaderboard"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/players": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search players by user name or display name (prefix, any case), id or external id; paged */
        get: operations["previewSearchPlayers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/players/{playerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One player: names, currencies, scriptData, privateData, external ids, created, last seen, ban */
        get: operations["previewGetPlayer"];
        put?: never;
        post?: never;
        /** Erase the player and everything keyed by it (entries, running totals, data items, devices), in one transaction */
        delete: operations["previewErasePlayer"];
        options?: never;
        head?: never;
        /** Set the display name, currency balances and/or the whole scriptData (audited) */
        patch: operations["previewEditPlayer"];
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/players/{playerId}/ban": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ban the player: its logins answer DETAILS: LOCKED, its other requests playerId: LOCKED */
        post: operations["previewBanPlayer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/players/{playerId}/unban": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Lift the ban */
        post: operations["previewUnbanPlayer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/players/{playerId}/sessions/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reset the player's sessions: clears its login lockout (the runtime stores no session) */
        post: operations["previewResetPlayerSessions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/players/{playerId}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Everything held about the player as one JSON document (audited as players.export) */
        get: operations["previewExportPlayer"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/leaderboards": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The stage's leaderboards: boards of the current period (partitions), entry counts, next reset */
        get: operations["previewListLeaderboards"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/leaderboards/{shortCode}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One leaderboard: its boards (partitions), entry counts, period and next reset */
        get: operations["previewGetLeaderboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/leaderboards/{shortCode}/entries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Entries by rank from offset (0-based): the top entries with the default offset */
        get: operations["previewLeaderboardTopEntries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/leaderboards/{shortCode}/around/{playerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The player's entry with up to `count` entries ahead and behind (empty when it has none) */
        get: operations["previewLeaderboardEntriesAround"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/leaderboards/{shortCode}/entries/{playerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete the player's entry of the current period (audited); its next event makes a fresh one */
        delete: operations["previewDeleteLeaderboardEntry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/restv2/game/{gameApiKey}/leaderboards/{shortCode}/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reset now: delete every board of the leaderboard (or the partition) with its entries (audited) */
        post: operations["previewResetLeaderboard"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/rs/{credential}/{secret}/RegistrationRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** RegistrationRequest, run as a game server; see docs/runtime.md */
        post: operations["liveRegistrationRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/rs/{credential}/{secret}/AuthenticationRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** AuthenticationRequest, run as a game server; see docs/runtime.md */
        post: operations["liveAuthenticationRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/rs/{credential}/{secret}/DeviceAuthenticationRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** DeviceAuthenticationRequest, run as a game server; see docs/runtime.md */
        post: operations["liveDeviceAuthenticationRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/rs/{credential}/{secret}/AccountDetailsRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** AccountDetailsRequest, run as a game server; see docs/runtime.md */
        post: operations["liveAccountDetailsRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/rs/{credential}/{secret}/LogEventRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** LogEventRequest, run as a game server; see docs/runtime.md */
        post: operations["liveLogEventRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/rs/{credential}/{secret}/LeaderboardDataRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** LeaderboardDataRequest, run as a game server; see docs/runtime.md */
        post: operations["liveLeaderboardDataRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/rs/{credential}/{secret}/AroundMeLeaderboardRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** AroundMeLeaderboardRequest, run as a game server; see docs/runtime.md */
        post: operations["liveAroundMeLeaderboardRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/callback/{apiKey}/{credential}/{secret}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Run the callbacks/ script of a credential; see docs/cloud-code.md */
        get: operations["liveCallbackGet"];
        put?: never;
        /** Run the callbacks/ script of a credential; see docs/cloud-code.md */
        post: operations["liveCallbackPost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/live/callback/{apiKey}/{credential}/{secret}/{playerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Run the callbacks/ script of a credential as a player; see docs/cloud-code.md */
        get: operations["liveCallbackAsPlayerGet"];
        put?: never;
        /** Run the callbacks/ script of a credential as a player; see docs/cloud-code.md */
        post: operations["liveCallbackAsPlayerPost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/rs/{credential}/{secret}/RegistrationRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** RegistrationRequest, run as a game server; see docs/runtime.md */
        post: operations["previewRegistrationRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/rs/{credential}/{secret}/AuthenticationRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** AuthenticationRequest, run as a game server; see docs/runtime.md */
        post: operations["previewAuthenticationRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/rs/{credential}/{secret}/DeviceAuthenticationRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** DeviceAuthenticationRequest, run as a game server; see docs/runtime.md */
        post: operations["previewDeviceAuthenticationRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/rs/{credential}/{secret}/AccountDetailsRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** AccountDetailsRequest, run as a game server; see docs/runtime.md */
        post: operations["previewAccountDetailsRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/rs/{credential}/{secret}/LogEventRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** LogEventRequest, run as a game server; see docs/runtime.md */
        post: operations["previewLogEventRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/rs/{credential}/{secret}/LeaderboardDataRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** LeaderboardDataRequest, run as a game server; see docs/runtime.md */
        post: operations["previewLeaderboardDataRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/rs/{credential}/{secret}/AroundMeLeaderboardRequest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** AroundMeLeaderboardRequest, run as a game server; see docs/runtime.md */
        post: operations["previewAroundMeLeaderboardRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/callback/{apiKey}/{credential}/{secret}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Run the callbacks/ script of a credential; see docs/cloud-code.md */
        get: operations["previewCallbackGet"];
        put?: never;
        /** Run the callbacks/ script of a credential; see docs/cloud-code.md */
        post: operations["previewCallbackPost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/preview/callback/{apiKey}/{credential}/{secret}/{playerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Run the callbacks/ script of a credential as a player; see docs/cloud-code.md */
        get: operations["previewCallbackAsPlayerGet"];
        put?: never;
        /** Run the callbacks/ script of a credential as a player; see docs/cloud-code.md */
        post: operations["previewCallbackAsPlayerPost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The Prometheus text exposition format, version 0.0.4 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example # HELP http_requests_in_flight Requests received and not yet answered
                     *     # TYPE http_requests_in_flight gauge
                     *     http_requests_in_flight 1
                     */
                    "text/plain": string;
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok"
                     *     }
                     */
                    "application/json": {
                        status: string;
                    };
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ready"
                     *     }
                     */
                    "application/json": {
                        status: string;
                        /** @description A runtime cluster's replica (docs/topology.md): whether it follows the feed, has caught up since the start, when it last applied an answer, and how old its knowledge may be (0 while following) */
                        replica?: {
                            cluster: string;
                            /** @enum {string} */
                            feed: "starting" | "following" | "unreachable";
                            caughtUp: boolean;
                            appliedAt: string | null;
                            lagMs: number | null;
                        };
                    };
                };
            };
        };
    };
    login: {
        parameters: {
            query?: {
                /** @description lifetime in seconds (a whole number) */
                expireInSeconds?: string;
                "X-SVCAccessToken"?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "country": "FR",
                     *       "username": "ada@studio.example",
                     *       "expiresAt": 1795435200000,
                     *       "X-SVCAccessToken": "q3Jm0bE8xW1yZ4n7cK2pV6tR9uA5sD0fG3hJ8kL1mN4"
                     *     }
                     */
                    "application/json": {
                        country: string;
                        username: string;
                        /** @description epoch milliseconds */
                        expiresAt: number;
                        "X-SVCAccessToken": string;
                    };
                };
            };
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    checkAccessToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "username": "ada@studio.example",
                     *       "country": "FR",
                     *       "isAdmin": false,
                     *       "expiresAt": 1795435200000
                     *     }
                     */
                    "application/json": {
                        username: string;
                        country: string;
                        isAdmin: boolean;
                        /** @description epoch milliseconds */
                        expiresAt: number;
                    };
                };
            };
        };
    };
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "oldPassword": "correct horse",
                 *       "password": "battery staple 2"
                 *     }
                 */
                "application/json": {
                    oldPassword?: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    endSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    getJwt: {
        parameters: {
            query?: {
                /** @description lifetime in seconds (a whole number) */
                expireInSeconds?: string;
                "X-SVCAccessToken"?: string;
            };
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "username": "ada@studio.example",
                     *       "expiresAt": 1795435200000,
                     *       "X-SVC-JWT": "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl"
                     *     }
                     */
                    "application/json": {
                        username: string;
                        /** @description epoch milliseconds */
                        expiresAt: number;
                        "X-SVC-JWT": string;
                    };
                };
            };
        };
    };
    getScopedJwt: {
        parameters: {
            query?: {
                /** @description lifetime in seconds (a whole number) */
                expireInSeconds?: string;
                "X-SVCAccessToken"?: string;
            };
            header?: never;
            path: {
                apiKey: string;
                filter: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "username": "ada@studio.example",
                     *       "expiresAt": 1795435200000,
                     *       "X-SVC-JWT": "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl"
                     *     }
                     */
                    "application/json": {
                        username: string;
                        /** @description epoch milliseconds */
                        expiresAt: number;
                        "X-SVC-JWT": string;
                    };
                };
            };
        };
    };
    getJwks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "kty": "OKP",
                     *           "crv": "Ed25519",
                     *           "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
                     *           "kid": "2026-11-22-9c1f0a2b3d4e",
                     *           "alg": "EdDSA",
                     *           "use": "sig"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        keys: {
                            [key: string]: unknown;
                        }[];
                    };
                };
            };
        };
    };
    rotateSigningKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "kid": "2026-11-22-9c1f0a2b3d4e"
                     *     }
                     */
                    "application/json": {
                        kid: string;
                    };
                };
            };
        };
    };
    listAccounts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "username": "ada@studio.example",
                     *         "country": "FR",
                     *         "isAdmin": false,
                     *         "disabled": false,
                     *         "created": "2026-11-22T12:00:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": {
                        username: string;
                        country: string;
                        isAdmin: boolean;
                        disabled: boolean;
                        created: string;
                    }[];
                };
            };
        };
    };
    createAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "username": "ada@studio.example",
                 *       "password": "correct horse",
                 *       "country": "FR"
                 *     }
                 */
                "application/json": {
                    username: string;
                    password: string;
                    country: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "username": "ada@studio.example",
                     *       "country": "FR",
                     *       "isAdmin": false,
                     *       "disabled": false,
                     *       "created": "2026-11-22T12:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        username: string;
                        country: string;
                        isAdmin: boolean;
                        disabled: boolean;
                        created: string;
                    };
                };
            };
        };
    };
    getAccount: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                username: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "username": "ada@studio.example",
                     *       "country": "FR",
                     *       "isAdmin": false,
                     *       "disabled": false,
                     *       "created": "2026-11-22T12:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        username: string;
                        country: string;
                        isAdmin: boolean;
                        disabled: boolean;
                        created: string;
                    };
                };
            };
        };
    };
    updateAccount: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                username: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "disabled": true
                 *     }
                 */
                "application/json": {
                    disabled?: boolean;
                    password?: string;
                    country?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "username": "ada@studio.example",
                     *       "country": "FR",
                     *       "isAdmin": false,
                     *       "disabled": false,
                     *       "created": "2026-11-22T12:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        username: string;
                        country: string;
                        isAdmin: boolean;
                        disabled: boolean;
                        created: string;
                    };
                };
            };
        };
    };
    listAuthGames: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                     *         "name": "Space Miners",
                     *         "cluster": "local",
                     *         "owner": "ada@studio.example",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "groups": []
                     *       }
                     *     ]
                     */
                    "application/json": {
                        apiKey: string;
                        name: string;
                        cluster: string;
                        owner: string;
                        created: string;
                        /** @description the caller's groups in the game (none for its owner) */
                        groups: string[];
                    }[];
                };
            };
        };
    };
    getPermissionCatalogue: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "levels": {
                     *         "0": "none",
                     *         "1": "read",
                     *         "2": "read and write"
                     *       },
                     *       "permissions": [
                     *         {
                     *           "key": "admin.publish",
                     *           "description": "Publish and unpublish snapshots to the Live stage (2)."
                     *         }
                     *       ],
                     *       "scopes": {
                     *         "nosql": [
                     *           "nosql"
                     *         ],
                     *         "config": [
                     *           "configurator",
                     *           "game"
                     *         ],
                     *         "admin": [
                     *           "admin",
                     *           "manage",
                     *           "game"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        levels: {
                            [key: string]: string;
                        };
                        permissions: {
                            key: string;
                            description: string;
                        }[];
                        scopes: {
                            [key: string]: string[];
                        };
                    };
                };
            };
        };
    };
    getGamePermissions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                     *       "owner": false,
                     *       "groups": [
                     *         "Designers"
                     *       ],
                     *       "permissions": {
                     *         "configurator": 2,
                     *         "admin.snapshots": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        apiKey: string;
                        owner: boolean;
                        groups: string[];
                        permissions: {
                            [key: string]: number;
                        };
                    };
                };
            };
        };
    };
    listGroups: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "name": "Designers",
                     *         "permissions": {
                     *           "configurator": 2,
                     *           "admin.snapshots": 1
                     *         }
                     *       }
                     *     ]
                     */
                    "application/json": {
                        name: string;
                        permissions: {
                            [key: string]: number;
                        };
                    }[];
                };
            };
        };
    };
    createGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Designers",
                 *       "permissions": {
                 *         "configurator": 2,
                 *         "admin.snapshots": 1
                 *       }
                 *     }
                 */
                "application/json": {
                    name: string;
                    permissions: {
                        [key: string]: number;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "Designers",
                     *       "permissions": {
                     *         "configurator": 2,
                     *         "admin.snapshots": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        name: string;
                        permissions: {
                            [key: string]: number;
                        };
                    };
                };
            };
        };
    };
    getGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "Designers",
                     *       "permissions": {
                     *         "configurator": 2,
                     *         "admin.snapshots": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        name: string;
                        permissions: {
                            [key: string]: number;
                        };
                    };
                };
            };
        };
    };
    updateGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "permissions": {
                 *         "configurator": 2,
                 *         "admin.snapshots": 1
                 *       }
                 *     }
                 */
                "application/json": {
                    name?: string;
                    permissions: {
                        [key: string]: number;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "Designers",
                     *       "permissions": {
                     *         "configurator": 2,
                     *         "admin.snapshots": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        name: string;
                        permissions: {
                            [key: string]: number;
                        };
                    };
                };
            };
        };
    };
    deleteGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    listCollaborators: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "email": "grace@studio.example",
                     *         "groupNames": [
                     *           "Designers"
                     *         ]
                     *       }
                     *     ]
                     */
                    "application/json": {
                        email: string;
                        groupNames: string[];
                    }[];
                };
            };
        };
    };
    addCollaborator: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "grace@studio.example",
                 *       "groupNames": [
                 *         "Designers"
                 *       ]
                 *     }
                 */
                "application/json": {
                    email: string;
                    groupNames: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "email": "grace@studio.example",
                     *       "groupNames": [
                     *         "Designers"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        email: string;
                        groupNames: string[];
                    };
                };
            };
        };
    };
    getCollaborator: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                email: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "email": "grace@studio.example",
                     *       "groupNames": [
                     *         "Designers"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        email: string;
                        groupNames: string[];
                    };
                };
            };
        };
    };
    updateCollaborator: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                email: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "groupNames": [
                 *         "Designers",
                 *         "Analysts"
                 *       ]
                 *     }
                 */
                "application/json": {
                    email?: string;
                    groupNames: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "email": "grace@studio.example",
                     *       "groupNames": [
                     *         "Designers"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        email: string;
                        groupNames: string[];
                    };
                };
            };
        };
    };
    removeCollaborator: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                email: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    transferOwnership: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "grace@studio.example"
                 *     }
                 */
                "application/json": {
                    email: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    listGames: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                     *         "name": "Space Miners",
                     *         "cluster": "local",
                     *         "owner": "ada@studio.example",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "groups": []
                     *       }
                     *     ]
                     */
                    "application/json": {
                        apiKey: string;
                        name: string;
                        cluster: string;
                        owner: string;
                        created: string;
                        /** @description the caller's groups in the game (none for its owner) */
                        groups: string[];
                    }[];
                };
            };
        };
    };
    createGame: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Space Miners"
                 *     }
                 */
                "application/json": {
                    name: string;
                    cluster?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                     *       "name": "Space Miners",
                     *       "cluster": "local",
                     *       "owner": "ada@studio.example",
                     *       "created": "2026-11-22T12:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        apiKey: string;
                        name: string;
                        cluster: string;
                        owner: string;
                        created: string;
                        deleted?: string;
                    };
                };
            };
        };
    };
    listDeletedGames: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                     *         "name": "Space Miners",
                     *         "cluster": "local",
                     *         "owner": "ada@studio.example",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "deleted": "2026-11-23T09:30:00.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": {
                        apiKey: string;
                        name: string;
                        cluster: string;
                        owner: string;
                        created: string;
                        deleted?: string;
                    }[];
                };
            };
        };
    };
    getGame: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                     *       "name": "Space Miners",
                     *       "cluster": "local",
                     *       "owner": "ada@studio.example",
                     *       "created": "2026-11-22T12:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        apiKey: string;
                        name: string;
                        cluster: string;
                        owner: string;
                        created: string;
                        deleted?: string;
                    };
                };
            };
        };
    };
    deleteGame: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    renameGame: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Space Miners 2"
                 *     }
                 */
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                     *       "name": "Space Miners",
                     *       "cluster": "local",
                     *       "owner": "ada@studio.example",
                     *       "created": "2026-11-22T12:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        apiKey: string;
                        name: string;
                        cluster: string;
                        owner: string;
                        created: string;
                        deleted?: string;
                    };
                };
            };
        };
    };
    restoreGame: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                     *       "name": "Space Miners",
                     *       "cluster": "local",
                     *       "owner": "ada@studio.example",
                     *       "created": "2026-11-22T12:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        apiKey: string;
                        name: string;
                        cluster: string;
                        owner: string;
                        created: string;
                        deleted?: string;
                    };
                };
            };
        };
    };
    getEndpoints: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "liveNosql": "https://playbase.example/live",
                     *       "previewNosql": "https://playbase.example/preview",
                     *       "liveElasticSearch": null,
                     *       "previewElasticSearch": null
                     *     }
                     */
                    "application/json": {
                        liveNosql: string | null;
                        previewNosql: string | null;
                        liveElasticSearch: string | null;
                        previewElasticSearch: string | null;
                    };
                };
            };
        };
    };
    getConfig: {
        parameters: {
            query?: {
                full?: boolean;
            };
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        apiKey: string;
                        version: number;
                        "~events": {
                            "@id": string;
                            shortCode: string;
                            name: string;
                        }[];
                        "~runningTotals": {
                            "@id": string;
                            shortCode: string;
                            name: string;
                        }[];
                        "~leaderboards": {
                            "@id": string;
                            shortCode: string;
                            name: string;
                        }[];
                        "~indexedTypes": {
                            "@id": string;
                            shortCode: string;
                            name: string;
                        }[];
                        "~credentials": {
                            "@id": string;
                            name: string;
                        }[];
                    } | {
                        apiKey: string;
                        "~events": {
                            "@id": string;
                            name: string;
                            shortCode: string;
                            description: string;
                            "~attributes": {
                                "@id": string;
                                name: string;
                                shortCode: string;
                                dataType: string;
                                defaultAggregationType: string;
                                defaultValue: unknown;
                            }[];
                        }[];
                        "~runningTotals": {
                            "@id": string;
                            shortCode: string;
                            name: string;
                            description: string;
                            event: {
                                "@ref": string;
                            };
                            groupBy: {
                                "@ref": string;
                            }[];
                            collectors: {
                                attribute: {
                                    "@ref": string;
                                };
                                calculation: string;
                                filter?: {
                                    operator: string;
                                    value: unknown;
                                };
                            }[];
                        }[];
                        "~leaderboards": {
                            "@id": string;
                            shortCode: string;
                            name: string;
                            description: string;
                            fields: {
                                runningTotal: {
                                    "@ref": string;
                                };
                                collector: string;
                                sort: string;
                            }[];
                            partitions: {
                                attribute: string;
                            }[];
                            resetFrequency: string;
                        }[];
                        "~indexedTypes": {
                            "@id": string;
                            shortCode: string;
                            name: string;
                            fields: {
                                name: string;
                                type: string;
                            }[];
                        }[];
                        "~credentials": {
                            "@id": string;
                            name: string;
                        }[];
                        "~scripts"?: {
                            folder: string;
                            shortCode: string;
                            script: string;
                        }[];
                    };
                };
            };
        };
    };
    replaceConfig: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                 *       "~events": [
                 *         {
                 *           "@id": "/~events/winRace",
                 *           "name": "Win Race",
                 *           "shortCode": "winRace",
                 *           "description": "A player finished a race",
                 *           "~attributes": [
                 *             {
                 *               "@id": "/~events/winRace/~attributes/SCORE",
                 *               "name": "Score",
                 *               "shortCode": "SCORE",
                 *               "dataType": "int",
                 *               "defaultAggregationType": "MAX",
                 *               "defaultValue": 0
                 *             }
                 *           ]
                 *         }
                 *       ],
                 *       "~runningTotals": [
                 *         {
                 *           "@id": "/~runningTotals/bestScore",
                 *           "shortCode": "bestScore",
                 *           "name": "Best score",
                 *           "description": "",
                 *           "event": {
                 *             "@ref": "/~events/winRace"
                 *           },
                 *           "groupBy": [],
                 *           "collectors": [
                 *             {
                 *               "attribute": {
                 *                 "@ref": "/~events/winRace/~attributes/SCORE"
                 *               },
                 *               "calculation": "MAX"
                 *             }
                 *           ]
                 *         }
                 *       ],
                 *       "~leaderboards": [
                 *         {
                 *           "@id": "/~leaderboards/topScores",
                 *           "shortCode": "topScores",
                 *           "name": "Top scores",
                 *           "description": "",
                 *           "fields": [
                 *             {
                 *               "runningTotal": {
                 *                 "@ref": "/~runningTotals/bestScore"
                 *               },
                 *               "collector": "SCORE",
                 *               "sort": "DESC"
                 *             }
                 *           ],
                 *           "partitions": [],
                 *           "resetFrequency": "NEVER"
                 *         }
                 *       ],
                 *       "~indexedTypes": [
                 *         {
                 *           "@id": "/~indexedTypes/inventory",
                 *           "shortCode": "inventory",
                 *           "name": "Inventory",
                 *           "fields": [
                 *             {
                 *               "name": "owner",
                 *               "type": "string"
                 *             }
                 *           ]
                 *         }
                 *       ],
                 *       "~credentials": [
                 *         {
                 *           "@id": "/~credentials/server",
                 *           "name": "server"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    apiKey?: string;
                    "~events"?: {
                        "@id"?: string;
                        name: string;
                        shortCode: string;
                        description: string;
                        "~attributes"?: {
                            "@id"?: string;
                            name: string;
                            shortCode: string;
                            /** @enum {unknown} */
                            dataType: "int" | "number" | "string" | "json";
                            /** @enum {unknown} */
                            defaultAggregationType: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SCRIPT" | "GROUPED" | "SUPPLEMENTAL";
                            defaultValue?: unknown;
                        }[];
                    }[];
                    "~runningTotals"?: {
                        "@id"?: string;
                        shortCode: string;
                        name: string;
                        description?: string;
                        event: {
                            "@ref": string;
                        };
                        groupBy?: {
                            "@ref": string;
                        }[];
                        collectors: {
                            attribute: {
                                "@ref": string;
                            };
                            /** @enum {unknown} */
                            calculation: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SUPPLEMENTAL";
                            filter?: {
                                /** @enum {unknown} */
                                operator: "EQ" | "NE" | "GT" | "GE" | "LT" | "LE";
                                value: unknown;
                            };
                        }[];
                    }[];
                    "~leaderboards"?: {
                        "@id"?: string;
                        shortCode: string;
                        name: string;
                        description?: string;
                        fields: {
                            runningTotal: {
                                "@ref": string;
                            };
                            collector: string;
                            /** @enum {unknown} */
                            sort: "ASC" | "DESC";
                        }[];
                        partitions?: {
                            attribute: string;
                        }[];
                        /** @enum {unknown} */
                        resetFrequency?: "NEVER" | "DAILY" | "WEEKLY" | "MONTHLY";
                    }[];
                    "~indexedTypes"?: {
                        "@id"?: string;
                        shortCode: string;
                        name: string;
                        fields: {
                            name: string;
                            /** @enum {unknown} */
                            type: "string" | "number";
                        }[];
                    }[];
                    "~credentials"?: {
                        "@id"?: string;
                        name: string;
                    }[];
                    "~scripts"?: {
                        /** @enum {unknown} */
                        folder: "event" | "request" | "response" | "system" | "callbacks" | "modules";
                        shortCode: string;
                        script: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                     *       "~events": [
                     *         {
                     *           "@id": "/~events/winRace",
                     *           "name": "Win Race",
                     *           "shortCode": "winRace",
                     *           "description": "A player finished a race",
                     *           "~attributes": [
                     *             {
                     *               "@id": "/~events/winRace/~attributes/SCORE",
                     *               "name": "Score",
                     *               "shortCode": "SCORE",
                     *               "dataType": "int",
                     *               "defaultAggregationType": "MAX",
                     *               "defaultValue": 0
                     *             }
                     *           ]
                     *         }
                     *       ],
                     *       "~runningTotals": [
                     *         {
                     *           "@id": "/~runningTotals/bestScore",
                     *           "shortCode": "bestScore",
                     *           "name": "Best score",
                     *           "description": "",
                     *           "event": {
                     *             "@ref": "/~events/winRace"
                     *           },
                     *           "groupBy": [],
                     *           "collectors": [
                     *             {
                     *               "attribute": {
                     *                 "@ref": "/~events/winRace/~attributes/SCORE"
                     *               },
                     *               "calculation": "MAX"
                     *             }
                     *           ]
                     *         }
                     *       ],
                     *       "~leaderboards": [
                     *         {
                     *           "@id": "/~leaderboards/topScores",
                     *           "shortCode": "topScores",
                     *           "name": "Top scores",
                     *           "description": "",
                     *           "fields": [
                     *             {
                     *               "runningTotal": {
                     *                 "@ref": "/~runningTotals/bestScore"
                     *               },
                     *               "collector": "SCORE",
                     *               "sort": "DESC"
                     *             }
                     *           ],
                     *           "partitions": [],
                     *           "resetFrequency": "NEVER"
                     *         }
                     *       ],
                     *       "~indexedTypes": [
                     *         {
                     *           "@id": "/~indexedTypes/inventory",
                     *           "shortCode": "inventory",
                     *           "name": "Inventory",
                     *           "fields": [
                     *             {
                     *               "name": "owner",
                     *               "type": "string"
                     *             }
                     *           ]
                     *         }
                     *       ],
                     *       "~credentials": [
                     *         {
                     *           "@id": "/~credentials/server",
                     *           "name": "server"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        apiKey: string;
                        "~events": {
                            "@id": string;
                            name: string;
                            shortCode: string;
                            description: string;
                            "~attributes": {
                                "@id": string;
                                name: string;
                                shortCode: string;
                                dataType: string;
                                defaultAggregationType: string;
                                defaultValue: unknown;
                            }[];
                        }[];
                        "~runningTotals": {
                            "@id": string;
                            shortCode: string;
                            name: string;
                            description: string;
                            event: {
                                "@ref": string;
                            };
                            groupBy: {
                                "@ref": string;
                            }[];
                            collectors: {
                                attribute: {
                                    "@ref": string;
                                };
                                calculation: string;
                                filter?: {
                                    operator: string;
                                    value: unknown;
                                };
                            }[];
                        }[];
                        "~leaderboards": {
                            "@id": string;
                            shortCode: string;
                            name: string;
                            description: string;
                            fields: {
                                runningTotal: {
                                    "@ref": string;
                                };
                                collector: string;
                                sort: string;
                            }[];
                            partitions: {
                                attribute: string;
                            }[];
                            resetFrequency: string;
                        }[];
                        "~indexedTypes": {
                            "@id": string;
                            shortCode: string;
                            name: string;
                            fields: {
                                name: string;
                                type: string;
                            }[];
                        }[];
                        "~credentials": {
                            "@id": string;
                            name: string;
                        }[];
                        "~scripts"?: {
                            folder: string;
                            shortCode: string;
                            script: string;
                        }[];
                    };
                };
            };
        };
    };
    listCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "@id": "/~credentials/server",
                     *         "name": "server"
                     *       }
                     *     ]
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                    }[];
                };
            };
        };
    };
    createCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "server"
                 *     }
                 */
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~credentials/server",
                     *       "name": "server",
                     *       "secret": "Xb3k9QzL0mW7pR2tY5vN8cF1hJ4dG6sA0eK3uI9oP2q"
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        secret: string;
                    };
                };
            };
        };
    };
    getCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~credentials/server",
                     *       "name": "server"
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                    };
                };
            };
        };
    };
    deleteCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    resetCredentialSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "secret": "Xb3k9QzL0mW7pR2tY5vN8cF1hJ4dG6sA0eK3uI9oP2q"
                     *     }
                     */
                    "application/json": {
                        secret: string;
                    };
                };
            };
        };
    };
    getPushCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "apple": {
                     *         "keyId": "ABC123DEFG",
                     *         "teamId": "DEF123GHIJ",
                     *         "topic": "com.studio.spaceminers"
                     *       },
                     *       "google": {
                     *         "projectId": "space-miners",
                     *         "clientEmail": "push@space-miners.iam.gserviceaccount.com"
                     *       }
                     *     }
                     */
                    "application/json": {
                        apple?: {
                            keyId: string;
                            teamId: string;
                            topic: string;
                        };
                        google?: {
                            projectId: string;
                            clientEmail: string;
                        };
                    };
                };
            };
        };
    };
    replacePushCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "apple": {
                 *         "keyPem": "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n",
                 *         "keyId": "ABC123DEFG",
                 *         "teamId": "DEF123GHIJ",
                 *         "topic": "com.studio.spaceminers"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description {keyPem, keyId, teamId, topic}: the APNs token key (.p8, PKCS#8 PEM) and its identifiers */
                    apple?: unknown;
                    /** @description {serviceAccount}: the FCM service account JSON (an object, or its text) */
                    google?: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "apple": {
                     *         "keyId": "ABC123DEFG",
                     *         "teamId": "DEF123GHIJ",
                     *         "topic": "com.studio.spaceminers"
                     *       },
                     *       "google": {
                     *         "projectId": "space-miners",
                     *         "clientEmail": "push@space-miners.iam.gserviceaccount.com"
                     *       }
                     *     }
                     */
                    "application/json": {
                        apple?: {
                            keyId: string;
                            teamId: string;
                            topic: string;
                        };
                        google?: {
                            projectId: string;
                            clientEmail: string;
                        };
                    };
                };
            };
        };
    };
    listEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "@id": "/~events/winRace",
                     *         "name": "Win Race",
                     *         "shortCode": "winRace",
                     *         "description": "A player finished a race",
                     *         "~attributes": [
                     *           {
                     *             "@id": "/~events/winRace/~attributes/SCORE",
                     *             "name": "Score",
                     *             "shortCode": "SCORE",
                     *             "dataType": "int",
                     *             "defaultAggregationType": "MAX",
                     *             "defaultValue": 0
                     *           }
                     *         ]
                     *       }
                     *     ]
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        shortCode: string;
                        description: string;
                        "~attributes": {
                            "@id": string;
                            name: string;
                            shortCode: string;
                            dataType: string;
                            defaultAggregationType: string;
                            defaultValue: unknown;
                        }[];
                    }[];
                };
            };
        };
    };
    createEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~events/winRace",
                 *       "name": "Win Race",
                 *       "shortCode": "winRace",
                 *       "description": "A player finished a race",
                 *       "~attributes": [
                 *         {
                 *           "@id": "/~events/winRace/~attributes/SCORE",
                 *           "name": "Score",
                 *           "shortCode": "SCORE",
                 *           "dataType": "int",
                 *           "defaultAggregationType": "MAX",
                 *           "defaultValue": 0
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    name: string;
                    shortCode: string;
                    description: string;
                    "~attributes"?: {
                        "@id"?: string;
                        name: string;
                        shortCode: string;
                        /** @enum {unknown} */
                        dataType: "int" | "number" | "string" | "json";
                        /** @enum {unknown} */
                        defaultAggregationType: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SCRIPT" | "GROUPED" | "SUPPLEMENTAL";
                        defaultValue?: unknown;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~events/winRace",
                     *       "name": "Win Race",
                     *       "shortCode": "winRace",
                     *       "description": "A player finished a race",
                     *       "~attributes": [
                     *         {
                     *           "@id": "/~events/winRace/~attributes/SCORE",
                     *           "name": "Score",
                     *           "shortCode": "SCORE",
                     *           "dataType": "int",
                     *           "defaultAggregationType": "MAX",
                     *           "defaultValue": 0
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        shortCode: string;
                        description: string;
                        "~attributes": {
                            "@id": string;
                            name: string;
                            shortCode: string;
                            dataType: string;
                            defaultAggregationType: string;
                            defaultValue: unknown;
                        }[];
                    };
                };
            };
        };
    };
    getEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                eventShortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~events/winRace",
                     *       "name": "Win Race",
                     *       "shortCode": "winRace",
                     *       "description": "A player finished a race",
                     *       "~attributes": [
                     *         {
                     *           "@id": "/~events/winRace/~attributes/SCORE",
                     *           "name": "Score",
                     *           "shortCode": "SCORE",
                     *           "dataType": "int",
                     *           "defaultAggregationType": "MAX",
                     *           "defaultValue": 0
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        shortCode: string;
                        description: string;
                        "~attributes": {
                            "@id": string;
                            name: string;
                            shortCode: string;
                            dataType: string;
                            defaultAggregationType: string;
                            defaultValue: unknown;
                        }[];
                    };
                };
            };
        };
    };
    updateEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                eventShortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~events/winRace",
                 *       "name": "Win Race",
                 *       "shortCode": "winRace",
                 *       "description": "A player finished a race",
                 *       "~attributes": [
                 *         {
                 *           "@id": "/~events/winRace/~attributes/SCORE",
                 *           "name": "Score",
                 *           "shortCode": "SCORE",
                 *           "dataType": "int",
                 *           "defaultAggregationType": "MAX",
                 *           "defaultValue": 0
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    name?: string;
                    shortCode?: string;
                    description?: string;
                    "~attributes"?: {
                        "@id"?: string;
                        name: string;
                        shortCode: string;
                        /** @enum {unknown} */
                        dataType: "int" | "number" | "string" | "json";
                        /** @enum {unknown} */
                        defaultAggregationType: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SCRIPT" | "GROUPED" | "SUPPLEMENTAL";
                        defaultValue?: unknown;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~events/winRace",
                     *       "name": "Win Race",
                     *       "shortCode": "winRace",
                     *       "description": "A player finished a race",
                     *       "~attributes": [
                     *         {
                     *           "@id": "/~events/winRace/~attributes/SCORE",
                     *           "name": "Score",
                     *           "shortCode": "SCORE",
                     *           "dataType": "int",
                     *           "defaultAggregationType": "MAX",
                     *           "defaultValue": 0
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        shortCode: string;
                        description: string;
                        "~attributes": {
                            "@id": string;
                            name: string;
                            shortCode: string;
                            dataType: string;
                            defaultAggregationType: string;
                            defaultValue: unknown;
                        }[];
                    };
                };
            };
        };
    };
    deleteEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                eventShortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    patchEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                eventShortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~events/winRace",
                 *       "name": "Win Race",
                 *       "shortCode": "winRace",
                 *       "description": "A player finished a race",
                 *       "~attributes": [
                 *         {
                 *           "@id": "/~events/winRace/~attributes/SCORE",
                 *           "name": "Score",
                 *           "shortCode": "SCORE",
                 *           "dataType": "int",
                 *           "defaultAggregationType": "MAX",
                 *           "defaultValue": 0
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    name?: string;
                    shortCode?: string;
                    description?: string;
                    "~attributes"?: {
                        "@id"?: string;
                        name: string;
                        shortCode: string;
                        /** @enum {unknown} */
                        dataType: "int" | "number" | "string" | "json";
                        /** @enum {unknown} */
                        defaultAggregationType: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SCRIPT" | "GROUPED" | "SUPPLEMENTAL";
                        defaultValue?: unknown;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~events/winRace",
                     *       "name": "Win Race",
                     *       "shortCode": "winRace",
                     *       "description": "A player finished a race",
                     *       "~attributes": [
                     *         {
                     *           "@id": "/~events/winRace/~attributes/SCORE",
                     *           "name": "Score",
                     *           "shortCode": "SCORE",
                     *           "dataType": "int",
                     *           "defaultAggregationType": "MAX",
                     *           "defaultValue": 0
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        shortCode: string;
                        description: string;
                        "~attributes": {
                            "@id": string;
                            name: string;
                            shortCode: string;
                            dataType: string;
                            defaultAggregationType: string;
                            defaultValue: unknown;
                        }[];
                    };
                };
            };
        };
    };
    listAttributes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                eventShortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "@id": "/~events/winRace/~attributes/SCORE",
                     *         "name": "Score",
                     *         "shortCode": "SCORE",
                     *         "dataType": "int",
                     *         "defaultAggregationType": "MAX",
                     *         "defaultValue": 0
                     *       }
                     *     ]
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        shortCode: string;
                        dataType: string;
                        defaultAggregationType: string;
                        defaultValue: unknown;
                    }[];
                };
            };
        };
    };
    createAttribute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                eventShortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~events/winRace/~attributes/SCORE",
                 *       "name": "Score",
                 *       "shortCode": "SCORE",
                 *       "dataType": "int",
                 *       "defaultAggregationType": "MAX",
                 *       "defaultValue": 0
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    name: string;
                    shortCode: string;
                    /** @enum {unknown} */
                    dataType: "int" | "number" | "string" | "json";
                    /** @enum {unknown} */
                    defaultAggregationType: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SCRIPT" | "GROUPED" | "SUPPLEMENTAL";
                    defaultValue?: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~events/winRace/~attributes/SCORE",
                     *       "name": "Score",
                     *       "shortCode": "SCORE",
                     *       "dataType": "int",
                     *       "defaultAggregationType": "MAX",
                     *       "defaultValue": 0
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        shortCode: string;
                        dataType: string;
                        defaultAggregationType: string;
                        defaultValue: unknown;
                    };
                };
            };
        };
    };
    getAttribute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                eventShortCode: string;
                attributeShortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~events/winRace/~attributes/SCORE",
                     *       "name": "Score",
                     *       "shortCode": "SCORE",
                     *       "dataType": "int",
                     *       "defaultAggregationType": "MAX",
                     *       "defaultValue": 0
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        shortCode: string;
                        dataType: string;
                        defaultAggregationType: string;
                        defaultValue: unknown;
                    };
                };
            };
        };
    };
    updateAttribute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                eventShortCode: string;
                attributeShortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~events/winRace/~attributes/SCORE",
                 *       "name": "Score",
                 *       "shortCode": "SCORE",
                 *       "dataType": "int",
                 *       "defaultAggregationType": "MAX",
                 *       "defaultValue": 0
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    name?: string;
                    shortCode?: string;
                    /** @enum {unknown} */
                    dataType?: "int" | "number" | "string" | "json";
                    /** @enum {unknown} */
                    defaultAggregationType?: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SCRIPT" | "GROUPED" | "SUPPLEMENTAL";
                    defaultValue?: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~events/winRace/~attributes/SCORE",
                     *       "name": "Score",
                     *       "shortCode": "SCORE",
                     *       "dataType": "int",
                     *       "defaultAggregationType": "MAX",
                     *       "defaultValue": 0
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        shortCode: string;
                        dataType: string;
                        defaultAggregationType: string;
                        defaultValue: unknown;
                    };
                };
            };
        };
    };
    deleteAttribute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                eventShortCode: string;
                attributeShortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    patchAttribute: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                eventShortCode: string;
                attributeShortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~events/winRace/~attributes/SCORE",
                 *       "name": "Score",
                 *       "shortCode": "SCORE",
                 *       "dataType": "int",
                 *       "defaultAggregationType": "MAX",
                 *       "defaultValue": 0
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    name?: string;
                    shortCode?: string;
                    /** @enum {unknown} */
                    dataType?: "int" | "number" | "string" | "json";
                    /** @enum {unknown} */
                    defaultAggregationType?: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SCRIPT" | "GROUPED" | "SUPPLEMENTAL";
                    defaultValue?: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~events/winRace/~attributes/SCORE",
                     *       "name": "Score",
                     *       "shortCode": "SCORE",
                     *       "dataType": "int",
                     *       "defaultAggregationType": "MAX",
                     *       "defaultValue": 0
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        name: string;
                        shortCode: string;
                        dataType: string;
                        defaultAggregationType: string;
                        defaultValue: unknown;
                    };
                };
            };
        };
    };
    listRunningTotals: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "@id": "/~runningTotals/bestScore",
                     *         "shortCode": "bestScore",
                     *         "name": "Best score",
                     *         "description": "",
                     *         "event": {
                     *           "@ref": "/~events/winRace"
                     *         },
                     *         "groupBy": [],
                     *         "collectors": [
                     *           {
                     *             "attribute": {
                     *               "@ref": "/~events/winRace/~attributes/SCORE"
                     *             },
                     *             "calculation": "MAX"
                     *           }
                     *         ]
                     *       }
                     *     ]
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        description: string;
                        event: {
                            "@ref": string;
                        };
                        groupBy: {
                            "@ref": string;
                        }[];
                        collectors: {
                            attribute: {
                                "@ref": string;
                            };
                            calculation: string;
                            filter?: {
                                operator: string;
                                value: unknown;
                            };
                        }[];
                    }[];
                };
            };
        };
    };
    createRunningTotal: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~runningTotals/bestScore",
                 *       "shortCode": "bestScore",
                 *       "name": "Best score",
                 *       "description": "",
                 *       "event": {
                 *         "@ref": "/~events/winRace"
                 *       },
                 *       "groupBy": [],
                 *       "collectors": [
                 *         {
                 *           "attribute": {
                 *             "@ref": "/~events/winRace/~attributes/SCORE"
                 *           },
                 *           "calculation": "MAX"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    shortCode: string;
                    name: string;
                    description?: string;
                    event: {
                        "@ref": string;
                    };
                    groupBy?: {
                        "@ref": string;
                    }[];
                    collectors: {
                        attribute: {
                            "@ref": string;
                        };
                        /** @enum {unknown} */
                        calculation: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SUPPLEMENTAL";
                        filter?: {
                            /** @enum {unknown} */
                            operator: "EQ" | "NE" | "GT" | "GE" | "LT" | "LE";
                            value: unknown;
                        };
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~runningTotals/bestScore",
                     *       "shortCode": "bestScore",
                     *       "name": "Best score",
                     *       "description": "",
                     *       "event": {
                     *         "@ref": "/~events/winRace"
                     *       },
                     *       "groupBy": [],
                     *       "collectors": [
                     *         {
                     *           "attribute": {
                     *             "@ref": "/~events/winRace/~attributes/SCORE"
                     *           },
                     *           "calculation": "MAX"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        description: string;
                        event: {
                            "@ref": string;
                        };
                        groupBy: {
                            "@ref": string;
                        }[];
                        collectors: {
                            attribute: {
                                "@ref": string;
                            };
                            calculation: string;
                            filter?: {
                                operator: string;
                                value: unknown;
                            };
                        }[];
                    };
                };
            };
        };
    };
    getRunningTotal: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~runningTotals/bestScore",
                     *       "shortCode": "bestScore",
                     *       "name": "Best score",
                     *       "description": "",
                     *       "event": {
                     *         "@ref": "/~events/winRace"
                     *       },
                     *       "groupBy": [],
                     *       "collectors": [
                     *         {
                     *           "attribute": {
                     *             "@ref": "/~events/winRace/~attributes/SCORE"
                     *           },
                     *           "calculation": "MAX"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        description: string;
                        event: {
                            "@ref": string;
                        };
                        groupBy: {
                            "@ref": string;
                        }[];
                        collectors: {
                            attribute: {
                                "@ref": string;
                            };
                            calculation: string;
                            filter?: {
                                operator: string;
                                value: unknown;
                            };
                        }[];
                    };
                };
            };
        };
    };
    updateRunningTotal: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~runningTotals/bestScore",
                 *       "shortCode": "bestScore",
                 *       "name": "Best score",
                 *       "description": "",
                 *       "event": {
                 *         "@ref": "/~events/winRace"
                 *       },
                 *       "groupBy": [],
                 *       "collectors": [
                 *         {
                 *           "attribute": {
                 *             "@ref": "/~events/winRace/~attributes/SCORE"
                 *           },
                 *           "calculation": "MAX"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    shortCode?: string;
                    name?: string;
                    description?: string;
                    event?: {
                        "@ref": string;
                    };
                    groupBy?: {
                        "@ref": string;
                    }[];
                    collectors?: {
                        attribute: {
                            "@ref": string;
                        };
                        /** @enum {unknown} */
                        calculation: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SUPPLEMENTAL";
                        filter?: {
                            /** @enum {unknown} */
                            operator: "EQ" | "NE" | "GT" | "GE" | "LT" | "LE";
                            value: unknown;
                        };
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~runningTotals/bestScore",
                     *       "shortCode": "bestScore",
                     *       "name": "Best score",
                     *       "description": "",
                     *       "event": {
                     *         "@ref": "/~events/winRace"
                     *       },
                     *       "groupBy": [],
                     *       "collectors": [
                     *         {
                     *           "attribute": {
                     *             "@ref": "/~events/winRace/~attributes/SCORE"
                     *           },
                     *           "calculation": "MAX"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        description: string;
                        event: {
                            "@ref": string;
                        };
                        groupBy: {
                            "@ref": string;
                        }[];
                        collectors: {
                            attribute: {
                                "@ref": string;
                            };
                            calculation: string;
                            filter?: {
                                operator: string;
                                value: unknown;
                            };
                        }[];
                    };
                };
            };
        };
    };
    deleteRunningTotal: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    patchRunningTotal: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~runningTotals/bestScore",
                 *       "shortCode": "bestScore",
                 *       "name": "Best score",
                 *       "description": "",
                 *       "event": {
                 *         "@ref": "/~events/winRace"
                 *       },
                 *       "groupBy": [],
                 *       "collectors": [
                 *         {
                 *           "attribute": {
                 *             "@ref": "/~events/winRace/~attributes/SCORE"
                 *           },
                 *           "calculation": "MAX"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    shortCode?: string;
                    name?: string;
                    description?: string;
                    event?: {
                        "@ref": string;
                    };
                    groupBy?: {
                        "@ref": string;
                    }[];
                    collectors?: {
                        attribute: {
                            "@ref": string;
                        };
                        /** @enum {unknown} */
                        calculation: "MAX" | "MIN" | "SUM" | "COUNT" | "LAST" | "SUPPLEMENTAL";
                        filter?: {
                            /** @enum {unknown} */
                            operator: "EQ" | "NE" | "GT" | "GE" | "LT" | "LE";
                            value: unknown;
                        };
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~runningTotals/bestScore",
                     *       "shortCode": "bestScore",
                     *       "name": "Best score",
                     *       "description": "",
                     *       "event": {
                     *         "@ref": "/~events/winRace"
                     *       },
                     *       "groupBy": [],
                     *       "collectors": [
                     *         {
                     *           "attribute": {
                     *             "@ref": "/~events/winRace/~attributes/SCORE"
                     *           },
                     *           "calculation": "MAX"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        description: string;
                        event: {
                            "@ref": string;
                        };
                        groupBy: {
                            "@ref": string;
                        }[];
                        collectors: {
                            attribute: {
                                "@ref": string;
                            };
                            calculation: string;
                            filter?: {
                                operator: string;
                                value: unknown;
                            };
                        }[];
                    };
                };
            };
        };
    };
    listLeaderboards: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "@id": "/~leaderboards/topScores",
                     *         "shortCode": "topScores",
                     *         "name": "Top scores",
                     *         "description": "",
                     *         "fields": [
                     *           {
                     *             "runningTotal": {
                     *               "@ref": "/~runningTotals/bestScore"
                     *             },
                     *             "collector": "SCORE",
                     *             "sort": "DESC"
                     *           }
                     *         ],
                     *         "partitions": [],
                     *         "resetFrequency": "NEVER"
                     *       }
                     *     ]
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        description: string;
                        fields: {
                            runningTotal: {
                                "@ref": string;
                            };
                            collector: string;
                            sort: string;
                        }[];
                        partitions: {
                            attribute: string;
                        }[];
                        resetFrequency: string;
                    }[];
                };
            };
        };
    };
    createLeaderboard: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~leaderboards/topScores",
                 *       "shortCode": "topScores",
                 *       "name": "Top scores",
                 *       "description": "",
                 *       "fields": [
                 *         {
                 *           "runningTotal": {
                 *             "@ref": "/~runningTotals/bestScore"
                 *           },
                 *           "collector": "SCORE",
                 *           "sort": "DESC"
                 *         }
                 *       ],
                 *       "partitions": [],
                 *       "resetFrequency": "NEVER"
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    shortCode: string;
                    name: string;
                    description?: string;
                    fields: {
                        runningTotal: {
                            "@ref": string;
                        };
                        collector: string;
                        /** @enum {unknown} */
                        sort: "ASC" | "DESC";
                    }[];
                    partitions?: {
                        attribute: string;
                    }[];
                    /** @enum {unknown} */
                    resetFrequency?: "NEVER" | "DAILY" | "WEEKLY" | "MONTHLY";
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~leaderboards/topScores",
                     *       "shortCode": "topScores",
                     *       "name": "Top scores",
                     *       "description": "",
                     *       "fields": [
                     *         {
                     *           "runningTotal": {
                     *             "@ref": "/~runningTotals/bestScore"
                     *           },
                     *           "collector": "SCORE",
                     *           "sort": "DESC"
                     *         }
                     *       ],
                     *       "partitions": [],
                     *       "resetFrequency": "NEVER"
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        description: string;
                        fields: {
                            runningTotal: {
                                "@ref": string;
                            };
                            collector: string;
                            sort: string;
                        }[];
                        partitions: {
                            attribute: string;
                        }[];
                        resetFrequency: string;
                    };
                };
            };
        };
    };
    getLeaderboard: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~leaderboards/topScores",
                     *       "shortCode": "topScores",
                     *       "name": "Top scores",
                     *       "description": "",
                     *       "fields": [
                     *         {
                     *           "runningTotal": {
                     *             "@ref": "/~runningTotals/bestScore"
                     *           },
                     *           "collector": "SCORE",
                     *           "sort": "DESC"
                     *         }
                     *       ],
                     *       "partitions": [],
                     *       "resetFrequency": "NEVER"
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        description: string;
                        fields: {
                            runningTotal: {
                                "@ref": string;
                            };
                            collector: string;
                            sort: string;
                        }[];
                        partitions: {
                            attribute: string;
                        }[];
                        resetFrequency: string;
                    };
                };
            };
        };
    };
    updateLeaderboard: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~leaderboards/topScores",
                 *       "shortCode": "topScores",
                 *       "name": "Top scores",
                 *       "description": "",
                 *       "fields": [
                 *         {
                 *           "runningTotal": {
                 *             "@ref": "/~runningTotals/bestScore"
                 *           },
                 *           "collector": "SCORE",
                 *           "sort": "DESC"
                 *         }
                 *       ],
                 *       "partitions": [],
                 *       "resetFrequency": "NEVER"
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    shortCode?: string;
                    name?: string;
                    description?: string;
                    fields?: {
                        runningTotal: {
                            "@ref": string;
                        };
                        collector: string;
                        /** @enum {unknown} */
                        sort: "ASC" | "DESC";
                    }[];
                    partitions?: {
                        attribute: string;
                    }[];
                    /** @enum {unknown} */
                    resetFrequency?: "NEVER" | "DAILY" | "WEEKLY" | "MONTHLY";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~leaderboards/topScores",
                     *       "shortCode": "topScores",
                     *       "name": "Top scores",
                     *       "description": "",
                     *       "fields": [
                     *         {
                     *           "runningTotal": {
                     *             "@ref": "/~runningTotals/bestScore"
                     *           },
                     *           "collector": "SCORE",
                     *           "sort": "DESC"
                     *         }
                     *       ],
                     *       "partitions": [],
                     *       "resetFrequency": "NEVER"
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        description: string;
                        fields: {
                            runningTotal: {
                                "@ref": string;
                            };
                            collector: string;
                            sort: string;
                        }[];
                        partitions: {
                            attribute: string;
                        }[];
                        resetFrequency: string;
                    };
                };
            };
        };
    };
    deleteLeaderboard: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    patchLeaderboard: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~leaderboards/topScores",
                 *       "shortCode": "topScores",
                 *       "name": "Top scores",
                 *       "description": "",
                 *       "fields": [
                 *         {
                 *           "runningTotal": {
                 *             "@ref": "/~runningTotals/bestScore"
                 *           },
                 *           "collector": "SCORE",
                 *           "sort": "DESC"
                 *         }
                 *       ],
                 *       "partitions": [],
                 *       "resetFrequency": "NEVER"
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    shortCode?: string;
                    name?: string;
                    description?: string;
                    fields?: {
                        runningTotal: {
                            "@ref": string;
                        };
                        collector: string;
                        /** @enum {unknown} */
                        sort: "ASC" | "DESC";
                    }[];
                    partitions?: {
                        attribute: string;
                    }[];
                    /** @enum {unknown} */
                    resetFrequency?: "NEVER" | "DAILY" | "WEEKLY" | "MONTHLY";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~leaderboards/topScores",
                     *       "shortCode": "topScores",
                     *       "name": "Top scores",
                     *       "description": "",
                     *       "fields": [
                     *         {
                     *           "runningTotal": {
                     *             "@ref": "/~runningTotals/bestScore"
                     *           },
                     *           "collector": "SCORE",
                     *           "sort": "DESC"
                     *         }
                     *       ],
                     *       "partitions": [],
                     *       "resetFrequency": "NEVER"
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        description: string;
                        fields: {
                            runningTotal: {
                                "@ref": string;
                            };
                            collector: string;
                            sort: string;
                        }[];
                        partitions: {
                            attribute: string;
                        }[];
                        resetFrequency: string;
                    };
                };
            };
        };
    };
    listIndexedTypes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "@id": "/~indexedTypes/inventory",
                     *         "shortCode": "inventory",
                     *         "name": "Inventory",
                     *         "fields": [
                     *           {
                     *             "name": "owner",
                     *             "type": "string"
                     *           }
                     *         ]
                     *       }
                     *     ]
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        fields: {
                            name: string;
                            type: string;
                        }[];
                    }[];
                };
            };
        };
    };
    createIndexedType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~indexedTypes/inventory",
                 *       "shortCode": "inventory",
                 *       "name": "Inventory",
                 *       "fields": [
                 *         {
                 *           "name": "owner",
                 *           "type": "string"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    shortCode: string;
                    name: string;
                    fields: {
                        name: string;
                        /** @enum {unknown} */
                        type: "string" | "number";
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~indexedTypes/inventory",
                     *       "shortCode": "inventory",
                     *       "name": "Inventory",
                     *       "fields": [
                     *         {
                     *           "name": "owner",
                     *           "type": "string"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        fields: {
                            name: string;
                            type: string;
                        }[];
                    };
                };
            };
        };
    };
    getIndexedType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~indexedTypes/inventory",
                     *       "shortCode": "inventory",
                     *       "name": "Inventory",
                     *       "fields": [
                     *         {
                     *           "name": "owner",
                     *           "type": "string"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        fields: {
                            name: string;
                            type: string;
                        }[];
                    };
                };
            };
        };
    };
    updateIndexedType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~indexedTypes/inventory",
                 *       "shortCode": "inventory",
                 *       "name": "Inventory",
                 *       "fields": [
                 *         {
                 *           "name": "owner",
                 *           "type": "string"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    shortCode?: string;
                    name?: string;
                    fields?: {
                        name: string;
                        /** @enum {unknown} */
                        type: "string" | "number";
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~indexedTypes/inventory",
                     *       "shortCode": "inventory",
                     *       "name": "Inventory",
                     *       "fields": [
                     *         {
                     *           "name": "owner",
                     *           "type": "string"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        fields: {
                            name: string;
                            type: string;
                        }[];
                    };
                };
            };
        };
    };
    deleteIndexedType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    patchIndexedType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@id": "/~indexedTypes/inventory",
                 *       "shortCode": "inventory",
                 *       "name": "Inventory",
                 *       "fields": [
                 *         {
                 *           "name": "owner",
                 *           "type": "string"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    "@id"?: string;
                    shortCode?: string;
                    name?: string;
                    fields?: {
                        name: string;
                        /** @enum {unknown} */
                        type: "string" | "number";
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@id": "/~indexedTypes/inventory",
                     *       "shortCode": "inventory",
                     *       "name": "Inventory",
                     *       "fields": [
                     *         {
                     *           "name": "owner",
                     *           "type": "string"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        "@id": string;
                        shortCode: string;
                        name: string;
                        fields: {
                            name: string;
                            type: string;
                        }[];
                    };
                };
            };
        };
    };
    listScripts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "folder": "event",
                     *         "shortCode": "winRace",
                     *         "size": 61,
                     *         "sha256": "5f2b7c1e9a0d4c3b8e6f1a2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4a3"
                     *       }
                     *     ]
                     */
                    "application/json": {
                        folder: string;
                        shortCode: string;
                        size: number;
                        sha256: string;
                    }[];
                };
            };
        };
    };
    exportScripts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the scripts: <folder>/<shortCode>.js */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example (zip of event/winRace.js, modules/UTILS.js, ...) */
                    "application/zip": string;
                };
            };
        };
    };
    getScript: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                folder: "event" | "request" | "response" | "system" | "callbacks" | "modules";
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "folder": "event",
                     *       "shortCode": "winRace",
                     *       "script": "// Cloud Code for winRace\nSpark.setScriptData(\"ok\", true);\n"
                     *     }
                     */
                    "application/json": {
                        folder: string;
                        shortCode: string;
                        script: string;
                    };
                };
            };
        };
    };
    putScript: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                folder: "event" | "request" | "response" | "system" | "callbacks" | "modules";
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "script": "// Cloud Code for winRace\nSpark.setScriptData(\"ok\", true);\n"
                 *     }
                 */
                "application/json": {
                    script: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "folder": "event",
                     *       "shortCode": "winRace",
                     *       "script": "// Cloud Code for winRace\nSpark.setScriptData(\"ok\", true);\n"
                     *     }
                     */
                    "application/json": {
                        folder: string;
                        shortCode: string;
                        script: string;
                    };
                };
            };
        };
    };
    deleteScript: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                folder: "event" | "request" | "response" | "system" | "callbacks" | "modules";
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    listAudit: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
                actor?: string;
                action?: string;
                since?: string;
                until?: string;
                "X-SVCAccessToken"?: string;
            };
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "entries": [
                     *         {
                     *           "id": "1042",
                     *           "apiKey": "k7Qd2mXp9LwZ4rTb8nYc",
                     *           "at": "2026-11-22T12:00:00.000Z",
                     *           "actor": "ada@studio.example",
                     *           "credential": "token",
                     *           "action": "config.patch",
                     *           "target": "/restv2/game/:apiKey/config/~events/:eventShortCode",
                     *           "method": "PATCH",
                     *           "path": "/restv2/game/k7Qd2mXp9LwZ4rTb8nYc/config/~events/winRace",
                     *           "status": 200,
                     *           "requestId": "req-3f9a1c",
                     *           "before": {
                     *             "name": "Win race"
                     *           },
                     *           "after": {
                     *             "name": "Win Race"
                     *           }
                     *         }
                     *       ],
                     *       "page": 1,
                     *       "pageSize": 50,
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        entries: {
                            id: string;
                            apiKey: string | null;
                            at: string;
                            actor: string;
                            credential: string | null;
                            action: string;
                            target: string | null;
                            method: string | null;
                            path: string | null;
                            status: number | null;
                            requestId: string | null;
                            before?: unknown;
                            after?: unknown;
                        }[];
                        page: number;
                        pageSize: number;
                        total: number;
                    };
                };
            };
        };
    };
    listSnapshots: {
        parameters: {
            query: {
                pageSize: number;
            };
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "createdBy": "ada@studio.example",
                     *         "description": "Season 3 balance",
                     *         "published": false
                     *       }
                     *     ]
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                    }[];
                };
            };
        };
    };
    createSnapshot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "Season 3 balance"
                 *     }
                 */
                "application/json": {
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *       "created": "2026-11-22T12:00:00.000Z",
                     *       "createdBy": "ada@studio.example",
                     *       "description": "Season 3 balance",
                     *       "published": false
                     *     }
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                    };
                };
            };
        };
    };
    listSnapshotsPage: {
        parameters: {
            query: {
                pageSize: number;
            };
            header?: never;
            path: {
                apiKey: string;
                n: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "createdBy": "ada@studio.example",
                     *         "description": "Season 3 balance",
                     *         "published": false
                     *       }
                     *     ]
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                    }[];
                };
            };
        };
    };
    getLiveSnapshotId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "liveSnapshotId": "5f0c2a9e1b7d4c3a8e6f1d20"
                     *     }
                     */
                    "application/json": {
                        liveSnapshotId: string | null;
                    };
                };
            };
        };
    };
    getSnapshot: {
        parameters: {
            query: {
                full: boolean;
            };
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *       "created": "2026-11-22T12:00:00.000Z",
                     *       "createdBy": "ada@studio.example",
                     *       "description": "Season 3 balance",
                     *       "published": false
                     *     }
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                        config?: unknown;
                        meta?: {
                            collection: string;
                            documents: number;
                            indexes: string[];
                        }[];
                    };
                };
            };
        };
    };
    deleteSnapshot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    publishSnapshot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *       "created": "2026-11-22T12:00:00.000Z",
                     *       "createdBy": "ada@studio.example",
                     *       "description": "Season 3 balance",
                     *       "published": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                    };
                };
            };
        };
    };
    unpublishSnapshot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *       "created": "2026-11-22T12:00:00.000Z",
                     *       "createdBy": "ada@studio.example",
                     *       "description": "Season 3 balance",
                     *       "published": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                    };
                };
            };
        };
    };
    revertToSnapshot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS",
                     *       "autosave": {
                     *         "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "createdBy": "ada@studio.example",
                     *         "description": "AUTOSAVE - Pre Revert",
                     *         "published": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        message: string;
                        /**
                         * @example {
                         *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                         *       "created": "2026-11-22T12:00:00.000Z",
                         *       "createdBy": "ada@studio.example",
                         *       "description": "Season 3 balance",
                         *       "published": false
                         *     }
                         */
                        autosave: {
                            id: string;
                            created: string;
                            createdBy: string;
                            description: string;
                            published: boolean;
                        };
                    };
                };
            };
        };
    };
    copySnapshotToNewGame: {
        parameters: {
            query: {
                includeConfig: boolean;
                includeMeta: boolean;
                includeCollaborators: boolean;
                name?: string;
            };
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "targetGameApiKey": "p2Lx8Vq4Rz7Nc1Md5Kt9",
                     *       "autosave": {
                     *         "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "createdBy": "ada@studio.example",
                     *         "description": "AUTOSAVE - Pre Copy",
                     *         "published": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        targetGameApiKey: string;
                        /**
                         * @example {
                         *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                         *       "created": "2026-11-22T12:00:00.000Z",
                         *       "createdBy": "ada@studio.example",
                         *       "description": "Season 3 balance",
                         *       "published": false
                         *     }
                         */
                        autosave?: {
                            id: string;
                            created: string;
                            createdBy: string;
                            description: string;
                            published: boolean;
                        };
                    };
                };
            };
        };
    };
    copySnapshotToGame: {
        parameters: {
            query: {
                includeConfig: boolean;
                includeMeta: boolean;
                includeCollaborators: boolean;
            };
            header?: never;
            path: {
                apiKey: string;
                id: string;
                targetApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "targetGameApiKey": "p2Lx8Vq4Rz7Nc1Md5Kt9",
                     *       "autosave": {
                     *         "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "createdBy": "ada@studio.example",
                     *         "description": "AUTOSAVE - Pre Copy",
                     *         "published": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        targetGameApiKey: string;
                        /**
                         * @example {
                         *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                         *       "created": "2026-11-22T12:00:00.000Z",
                         *       "createdBy": "ada@studio.example",
                         *       "description": "Season 3 balance",
                         *       "published": false
                         *     }
                         */
                        autosave?: {
                            id: string;
                            created: string;
                            createdBy: string;
                            description: string;
                            published: boolean;
                        };
                    };
                };
            };
        };
    };
    listScreens: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "shortCode": "players",
                     *         "name": "Players",
                     *         "template": "<gs-query name=\"topPlayers\"/>",
                     *         "groups": [
                     *           "Support"
                     *         ]
                     *       }
                     *     ]
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        template: string;
                        groups: string[];
                    }[];
                };
            };
        };
    };
    createScreen: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "shortCode": "players",
                 *       "name": "Players",
                 *       "template": "<gs-query name=\"topPlayers\"/>",
                 *       "groups": [
                 *         "Support"
                 *       ]
                 *     }
                 */
                "application/json": {
                    shortCode: string;
                    name: string;
                    template?: string;
                    groups?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "players",
                     *       "name": "Players",
                     *       "template": "<gs-query name=\"topPlayers\"/>",
                     *       "groups": [
                     *         "Support"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        template: string;
                        groups: string[];
                    };
                };
            };
        };
    };
    getScreen: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "players",
                     *       "name": "Players",
                     *       "template": "<gs-query name=\"topPlayers\"/>",
                     *       "groups": [
                     *         "Support"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        template: string;
                        groups: string[];
                    };
                };
            };
        };
    };
    replaceScreen: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Players",
                 *       "template": "<gs-query name=\"topPlayers\"/>",
                 *       "groups": [
                 *         "Support"
                 *       ]
                 *     }
                 */
                "application/json": {
                    shortCode?: string;
                    name: string;
                    template?: string;
                    groups?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "players",
                     *       "name": "Players",
                     *       "template": "<gs-query name=\"topPlayers\"/>",
                     *       "groups": [
                     *         "Support"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        template: string;
                        groups: string[];
                    };
                };
            };
        };
    };
    deleteScreen: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    listSnippets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "shortCode": "banPlayer",
                     *         "name": "Ban a player",
                     *         "template": "<p>{{playerId}} is banned</p>",
                     *         "groups": [
                     *           "Support"
                     *         ],
                     *         "script": "Spark.getPlayer(playerId).setPrivateData(\"banned\", true);",
                     *         "scriptData": {}
                     *       }
                     *     ]
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        template: string;
                        groups: string[];
                        script: string;
                        scriptData: {
                            [key: string]: unknown;
                        };
                    }[];
                };
            };
        };
    };
    createSnippet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "shortCode": "banPlayer",
                 *       "name": "Ban a player",
                 *       "template": "<p>{{playerId}} is banned</p>",
                 *       "groups": [
                 *         "Support"
                 *       ],
                 *       "script": "Spark.getPlayer(playerId).setPrivateData(\"banned\", true);",
                 *       "scriptData": {}
                 *     }
                 */
                "application/json": {
                    shortCode: string;
                    name: string;
                    template?: string;
                    groups?: string[];
                    script?: string;
                    scriptData?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "banPlayer",
                     *       "name": "Ban a player",
                     *       "template": "<p>{{playerId}} is banned</p>",
                     *       "groups": [
                     *         "Support"
                     *       ],
                     *       "script": "Spark.getPlayer(playerId).setPrivateData(\"banned\", true);",
                     *       "scriptData": {}
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        template: string;
                        groups: string[];
                        script: string;
                        scriptData: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    getSnippet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "banPlayer",
                     *       "name": "Ban a player",
                     *       "template": "<p>{{playerId}} is banned</p>",
                     *       "groups": [
                     *         "Support"
                     *       ],
                     *       "script": "Spark.getPlayer(playerId).setPrivateData(\"banned\", true);",
                     *       "scriptData": {}
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        template: string;
                        groups: string[];
                        script: string;
                        scriptData: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    replaceSnippet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Ban a player",
                 *       "template": "<p>{{playerId}} is banned</p>",
                 *       "groups": [
                 *         "Support"
                 *       ],
                 *       "script": "Spark.getPlayer(playerId).setPrivateData(\"banned\", true);",
                 *       "scriptData": {}
                 *     }
                 */
                "application/json": {
                    shortCode?: string;
                    name: string;
                    template?: string;
                    groups?: string[];
                    script?: string;
                    scriptData?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "banPlayer",
                     *       "name": "Ban a player",
                     *       "template": "<p>{{playerId}} is banned</p>",
                     *       "groups": [
                     *         "Support"
                     *       ],
                     *       "script": "Spark.getPlayer(playerId).setPrivateData(\"banned\", true);",
                     *       "scriptData": {}
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        template: string;
                        groups: string[];
                        script: string;
                        scriptData: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    deleteSnippet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    listQueries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "shortCode": "topPlayers",
                     *         "name": "Top players",
                     *         "collection": "player",
                     *         "query": {
                     *           "currency1": {
                     *             "$gt": 100
                     *           }
                     *         },
                     *         "fields": {
                     *           "displayName": 1,
                     *           "currency1": 1
                     *         },
                     *         "sort": {
                     *           "currency1": -1
                     *         },
                     *         "limit": 20,
                     *         "groups": [
                     *           "Support"
                     *         ]
                     *       }
                     *     ]
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        collection: string;
                        query: {
                            [key: string]: unknown;
                        };
                        fields: {
                            [key: string]: unknown;
                        };
                        sort: {
                            [key: string]: unknown;
                        };
                        limit: number;
                        groups: string[];
                    }[];
                };
            };
        };
    };
    createQuery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "shortCode": "topPlayers",
                 *       "name": "Top players",
                 *       "collection": "player",
                 *       "query": {
                 *         "currency1": {
                 *           "$gt": 100
                 *         }
                 *       },
                 *       "fields": {
                 *         "displayName": 1,
                 *         "currency1": 1
                 *       },
                 *       "sort": {
                 *         "currency1": -1
                 *       },
                 *       "limit": 20,
                 *       "groups": [
                 *         "Support"
                 *       ]
                 *     }
                 */
                "application/json": {
                    shortCode: string;
                    name: string;
                    collection: string;
                    query?: {
                        [key: string]: unknown;
                    };
                    fields?: {
                        [key: string]: unknown;
                    };
                    sort?: {
                        [key: string]: unknown;
                    };
                    limit?: number;
                    groups?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "topPlayers",
                     *       "name": "Top players",
                     *       "collection": "player",
                     *       "query": {
                     *         "currency1": {
                     *           "$gt": 100
                     *         }
                     *       },
                     *       "fields": {
                     *         "displayName": 1,
                     *         "currency1": 1
                     *       },
                     *       "sort": {
                     *         "currency1": -1
                     *       },
                     *       "limit": 20,
                     *       "groups": [
                     *         "Support"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        collection: string;
                        query: {
                            [key: string]: unknown;
                        };
                        fields: {
                            [key: string]: unknown;
                        };
                        sort: {
                            [key: string]: unknown;
                        };
                        limit: number;
                        groups: string[];
                    };
                };
            };
        };
    };
    getQuery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "topPlayers",
                     *       "name": "Top players",
                     *       "collection": "player",
                     *       "query": {
                     *         "currency1": {
                     *           "$gt": 100
                     *         }
                     *       },
                     *       "fields": {
                     *         "displayName": 1,
                     *         "currency1": 1
                     *       },
                     *       "sort": {
                     *         "currency1": -1
                     *       },
                     *       "limit": 20,
                     *       "groups": [
                     *         "Support"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        collection: string;
                        query: {
                            [key: string]: unknown;
                        };
                        fields: {
                            [key: string]: unknown;
                        };
                        sort: {
                            [key: string]: unknown;
                        };
                        limit: number;
                        groups: string[];
                    };
                };
            };
        };
    };
    replaceQuery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Top players",
                 *       "collection": "player",
                 *       "query": {
                 *         "currency1": {
                 *           "$gt": 100
                 *         }
                 *       },
                 *       "fields": {
                 *         "displayName": 1,
                 *         "currency1": 1
                 *       },
                 *       "sort": {
                 *         "currency1": -1
                 *       },
                 *       "limit": 20,
                 *       "groups": [
                 *         "Support"
                 *       ]
                 *     }
                 */
                "application/json": {
                    shortCode?: string;
                    name: string;
                    collection: string;
                    query?: {
                        [key: string]: unknown;
                    };
                    fields?: {
                        [key: string]: unknown;
                    };
                    sort?: {
                        [key: string]: unknown;
                    };
                    limit?: number;
                    groups?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "topPlayers",
                     *       "name": "Top players",
                     *       "collection": "player",
                     *       "query": {
                     *         "currency1": {
                     *           "$gt": 100
                     *         }
                     *       },
                     *       "fields": {
                     *         "displayName": 1,
                     *         "currency1": 1
                     *       },
                     *       "sort": {
                     *         "currency1": -1
                     *       },
                     *       "limit": 20,
                     *       "groups": [
                     *         "Support"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        collection: string;
                        query: {
                            [key: string]: unknown;
                        };
                        fields: {
                            [key: string]: unknown;
                        };
                        sort: {
                            [key: string]: unknown;
                        };
                        limit: number;
                        groups: string[];
                    };
                };
            };
        };
    };
    deleteQuery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    listScreenSnapshots: {
        parameters: {
            query: {
                pageSize: number;
            };
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "createdBy": "ada@studio.example",
                     *         "description": "Season 3 balance",
                     *         "published": false
                     *       }
                     *     ]
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                    }[];
                };
            };
        };
    };
    createScreenSnapshot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "Season 3 balance"
                 *     }
                 */
                "application/json": {
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *       "created": "2026-11-22T12:00:00.000Z",
                     *       "createdBy": "ada@studio.example",
                     *       "description": "Season 3 balance",
                     *       "published": false
                     *     }
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                    };
                };
            };
        };
    };
    listScreenSnapshotsPage: {
        parameters: {
            query: {
                pageSize: number;
            };
            header?: never;
            path: {
                apiKey: string;
                n: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "createdBy": "ada@studio.example",
                     *         "description": "Season 3 balance",
                     *         "published": false
                     *       }
                     *     ]
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                    }[];
                };
            };
        };
    };
    getLiveScreenSnapshotId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "liveSnapshotId": "5f0c2a9e1b7d4c3a8e6f1d20"
                     *     }
                     */
                    "application/json": {
                        liveSnapshotId: string | null;
                    };
                };
            };
        };
    };
    getScreenSnapshot: {
        parameters: {
            query: {
                full: boolean;
            };
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *       "created": "2026-11-22T12:00:00.000Z",
                     *       "createdBy": "ada@studio.example",
                     *       "description": "Season 3 balance",
                     *       "published": false
                     *     }
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                        config?: unknown;
                        meta?: {
                            collection: string;
                            documents: number;
                            indexes: string[];
                        }[];
                    };
                };
            };
        };
    };
    deleteScreenSnapshot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    publishScreenSnapshot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *       "created": "2026-11-22T12:00:00.000Z",
                     *       "createdBy": "ada@studio.example",
                     *       "description": "Season 3 balance",
                     *       "published": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                    };
                };
            };
        };
    };
    unpublishScreenSnapshot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *       "created": "2026-11-22T12:00:00.000Z",
                     *       "createdBy": "ada@studio.example",
                     *       "description": "Season 3 balance",
                     *       "published": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        created: string;
                        createdBy: string;
                        description: string;
                        published: boolean;
                    };
                };
            };
        };
    };
    revertToScreenSnapshot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS",
                     *       "autosave": {
                     *         "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "createdBy": "ada@studio.example",
                     *         "description": "AUTOSAVE - Pre Revert",
                     *         "published": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        message: string;
                        /**
                         * @example {
                         *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                         *       "created": "2026-11-22T12:00:00.000Z",
                         *       "createdBy": "ada@studio.example",
                         *       "description": "Season 3 balance",
                         *       "published": false
                         *     }
                         */
                        autosave: {
                            id: string;
                            created: string;
                            createdBy: string;
                            description: string;
                            published: boolean;
                        };
                    };
                };
            };
        };
    };
    copyScreenSnapshotToGame: {
        parameters: {
            query: {
                includeConfig: boolean;
                includeMeta: boolean;
                includeCollaborators: boolean;
            };
            header?: never;
            path: {
                apiKey: string;
                id: string;
                targetApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "targetGameApiKey": "p2Lx8Vq4Rz7Nc1Md5Kt9",
                     *       "autosave": {
                     *         "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                     *         "created": "2026-11-22T12:00:00.000Z",
                     *         "createdBy": "ada@studio.example",
                     *         "description": "AUTOSAVE - Pre Copy",
                     *         "published": false
                     *       }
                     *     }
                     */
                    "application/json": {
                        targetGameApiKey: string;
                        /**
                         * @example {
                         *       "id": "5f0c2a9e1b7d4c3a8e6f1d20",
                         *       "created": "2026-11-22T12:00:00.000Z",
                         *       "createdBy": "ada@studio.example",
                         *       "description": "Season 3 balance",
                         *       "published": false
                         *     }
                         */
                        autosave?: {
                            id: string;
                            created: string;
                            createdBy: string;
                            description: string;
                            published: boolean;
                        };
                    };
                };
            };
        };
    };
    sendTestPush: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                provider: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "pushId": "f3a9c0d2e4b6a8c0f1e3d5b7a9c1e3f5d7b9a1c3e5f7d9b1a3c5e7f9d1b3a5c7",
                 *       "title": "Season 3",
                 *       "summary": "The new tracks are open",
                 *       "customJson": {
                 *         "track": "moon"
                 *       }
                 *     }
                 */
                "application/json": {
                    pushId: string;
                    title?: string | null;
                    subtitle?: string | null;
                    summary?: string | null;
                    messageId?: string | null;
                    customJson?: {
                        [key: string]: unknown;
                    } | string | (never | null);
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "summaries": [
                     *         {
                     *           "title": "APNs (development): delivered",
                     *           "error": false,
                     *           "outgoingMessageParts": [
                     *             "POST /3/device/f3a9c0d2",
                     *             "{\"aps\":{\"alert\":{\"title\":\"Season 3\"}}}"
                     *           ],
                     *           "resultParts": [
                     *             "200",
                     *             "apns-id: 6F2A4B1C-0D3E-4F5A-8B9C-1D2E3F4A5B6C"
                     *           ]
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        summaries: {
                            title: string;
                            error: boolean;
                            outgoingMessageParts: string[];
                            resultParts: string[];
                        }[];
                    };
                };
            };
        };
    };
    sendTestPushToEnvironment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                provider: string;
                environment: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "pushId": "f3a9c0d2e4b6a8c0f1e3d5b7a9c1e3f5d7b9a1c3e5f7d9b1a3c5e7f9d1b3a5c7",
                 *       "title": "Season 3",
                 *       "summary": "The new tracks are open",
                 *       "customJson": {
                 *         "track": "moon"
                 *       }
                 *     }
                 */
                "application/json": {
                    pushId: string;
                    title?: string | null;
                    subtitle?: string | null;
                    summary?: string | null;
                    messageId?: string | null;
                    customJson?: {
                        [key: string]: unknown;
                    } | string | (never | null);
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "summaries": [
                     *         {
                     *           "title": "APNs (development): delivered",
                     *           "error": false,
                     *           "outgoingMessageParts": [
                     *             "POST /3/device/f3a9c0d2",
                     *             "{\"aps\":{\"alert\":{\"title\":\"Season 3\"}}}"
                     *           ],
                     *           "resultParts": [
                     *             "200",
                     *             "apns-id: 6F2A4B1C-0D3E-4F5A-8B9C-1D2E3F4A5B6C"
                     *           ]
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        summaries: {
                            title: string;
                            error: boolean;
                            outgoingMessageParts: string[];
                            resultParts: string[];
                        }[];
                    };
                };
            };
        };
    };
    importScripts: {
        parameters: {
            query?: {
                dryRun?: boolean;
            };
            header?: never;
            path: {
                apiKey: string;
            };
            cookie?: never;
        };
        /** @description a zip in the export layout (application/zip, application/x-zip-compressed, application/octet-stream; at most 4194304 bytes) */
        requestBody: {
            content: {
                /** @example (zip of event/winRace.js, modules/UTILS.js, ...) */
                "application/zip": unknown;
                /** @example (zip of event/winRace.js, modules/UTILS.js, ...) */
                "application/x-zip-compressed": unknown;
                /** @example (zip of event/winRace.js, modules/UTILS.js, ...) */
                "application/octet-stream": unknown;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "dryRun": true,
                     *       "added": [
                     *         "modules/UTILS.js"
                     *       ],
                     *       "changed": [
                     *         "event/winRace.js"
                     *       ],
                     *       "deleted": [
                     *         "response/LogEventResponse.js"
                     *       ],
                     *       "unchanged": [],
                     *       "refused": [
                     *         {
                     *           "file": "rtScript/match.js",
                     *           "reason": "folder rtScript is not supported"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        dryRun: boolean;
                        /** @description files whose script is new */
                        added: string[];
                        /** @description files that replace a script */
                        changed: string[];
                        /** @description scripts the zip does not hold (deleted) */
                        deleted: string[];
                        /** @description files equal to their script */
                        unchanged: string[];
                        /** @description files not applied, and why; a script of the same name is kept */
                        refused: {
                            file: string;
                            reason: string;
                        }[];
                    };
                };
            };
        };
    };
    getClusterChanges: {
        parameters: {
            query?: {
                after?: string;
                wait?: number;
            };
            header?: never;
            path: {
                cluster: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "cursor": "1042.7731",
                     *       "more": false,
                     *       "full": null,
                     *       "complete": false,
                     *       "keys": [],
                     *       "accounts": [
                     *         "{\"username\":\"owner@example.com\",\"password_hash\":\"!\",\"disabled\":false}"
                     *       ],
                     *       "deleted": {
                     *         "keys": [],
                     *         "accounts": []
                     *       },
                     *       "games": [
                     *         {
                     *           "apiKey": "x123456789",
                     *           "row": "{\"api_key\":\"x123456789\",\"name\":\"Race\",\"cluster\":\"a\",\"owner\":\"owner@example.com\"}",
                     *           "children": {
                     *             "game_configs": [
                     *               "{\"api_key\":\"x123456789\",\"doc\":{}}"
                     *             ]
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description Pass as `after` next time */
                        cursor: string;
                        /** @description The answer was cut: ask again at once */
                        more: boolean;
                        full: {
                            from: string | null;
                            to: string | null;
                        } | null;
                        /** @description keys and accounts list everything: remove the others */
                        complete: boolean;
                        /** @description signing_keys rows (JSON), public half only */
                        keys: string[];
                        /** @description accounts rows (JSON), with an unusable password hash */
                        accounts: string[];
                        deleted: {
                            keys: string[];
                            accounts: string[];
                        };
                        games: {
                            apiKey: string;
                            row: string | null;
                            children: {
                                [key: string]: string[];
                            } | null;
                        }[];
                    };
                };
            };
        };
    };
    getClusterPreviewMeta: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                cluster: string;
                apiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "collections": [
                     *         "meta.items"
                     *       ],
                     *       "documents": [
                     *         {
                     *           "collection": "meta.items",
                     *           "id": "1",
                     *           "doc": {
                     *             "_id": "1",
                     *             "name": "Sword"
                     *           }
                     *         }
                     *       ],
                     *       "indexes": []
                     *     }
                     */
                    "application/json": {
                        /** @description The meta collections made in Preview */
                        collections: string[];
                        /** @description Their documents as whole stored rows, without game and stage */
                        documents: {
                            [key: string]: unknown;
                        }[];
                        indexes: {
                            collection: string;
                            name: string;
                            /** @description [path, 1 or -1] pairs, in order */
                            keys: (string | number)[][];
                            unique: boolean;
                        }[];
                    };
                };
            };
        };
    };
    liveListCollections: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "name": "player",
                     *         "optionGroup": "System",
                     *         "actions": [
                     *           "FIND",
                     *           "COUNT",
                     *           "UPDATE",
                     *           "STATS"
                     *         ]
                     *       }
                     *     ]
                     */
                    "application/json": {
                        name: string;
                        optionGroup: string;
                        actions: string[];
                    }[];
                };
            };
        };
    };
    liveGetDatabaseStats: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "db": "k7Qd2mXp9LwZ4rTb8nYc",
                     *       "stage": "preview",
                     *       "collections": 5,
                     *       "objects": 1200,
                     *       "avgObjSize": 180,
                     *       "dataSize": 216000,
                     *       "indexes": 6,
                     *       "indexSize": 65536
                     *     }
                     */
                    "application/json": {
                        db: string;
                        stage: string;
                        collections: number;
                        objects: number;
                        avgObjSize: number;
                        dataSize: number;
                        indexes: number;
                        indexSize: number;
                    };
                };
            };
        };
    };
    liveGetCollectionStats: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ns": "k7Qd2mXp9LwZ4rTb8nYc.player",
                     *       "count": 1000,
                     *       "size": 180000,
                     *       "avgObjSize": 180,
                     *       "nindexes": 2,
                     *       "totalIndexSize": 49152,
                     *       "indexSizes": {
                     *         "_id_": 32768,
                     *         "level_-1": 16384
                     *       }
                     *     }
                     */
                    "application/json": {
                        ns: string;
                        count: number;
                        size: number;
                        avgObjSize: number;
                        nindexes: number;
                        totalIndexSize: number;
                        indexSizes: {
                            [key: string]: number;
                        };
                    };
                };
            };
        };
    };
    liveDropCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    liveCreateMetaCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    liveCreateRuntimeCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    liveFindDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "level": {
                 *           "$gte": 10
                 *         }
                 *       },
                 *       "fields": {
                 *         "displayName": 1
                 *       },
                 *       "sort": {
                 *         "level": -1
                 *       },
                 *       "limit": 20
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                    /** @description a projection */
                    fields?: {
                        [key: string]: unknown;
                    };
                    sort?: {
                        [key: string]: 1 | -1;
                    };
                    skip?: number;
                    /** @description 0, absent or above 10000: 10000 */
                    limit?: number;
                    /** @description an index name or keys; checked to exist, not forced */
                    hint?: string | {
                        [key: string]: 1 | -1;
                    };
                    /** @description accepted and left alone */
                    comment?: unknown;
                    /** @description checked between batches; 0: the server limit only */
                    maxTimeMS?: number;
                    /** @description accepted; the answer is one batch */
                    batchSize?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "_id": {
                     *           "$oid": "6740a1b2c3d4e5f601234567"
                     *         },
                     *         "displayName": "Ada",
                     *         "level": 12,
                     *         "created": {
                     *           "$date": {
                     *             "$numberLong": "1795435200000"
                     *           }
                     *         }
                     *       }
                     *     ]
                     */
                    "application/json": {
                        [key: string]: unknown;
                    }[];
                };
            };
        };
    };
    liveExplainFind: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "level": {
                 *           "$gte": 10
                 *         }
                 *       },
                 *       "fields": {
                 *         "displayName": 1
                 *       },
                 *       "sort": {
                 *         "level": -1
                 *       },
                 *       "limit": 20
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                    /** @description a projection */
                    fields?: {
                        [key: string]: unknown;
                    };
                    sort?: {
                        [key: string]: 1 | -1;
                    };
                    skip?: number;
                    /** @description 0, absent or above 10000: 10000 */
                    limit?: number;
                    /** @description an index name or keys; checked to exist, not forced */
                    hint?: string | {
                        [key: string]: 1 | -1;
                    };
                    /** @description accepted and left alone */
                    comment?: unknown;
                    /** @description checked between batches; 0: the server limit only */
                    maxTimeMS?: number;
                    /** @description accepted; the answer is one batch */
                    batchSize?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "collection": "player",
                     *       "indexesUsed": [
                     *         "level_-1"
                     *       ],
                     *       "summary": [
                     *         "The index \"level_-1\" found the matching documents on \"level\".",
                     *         "The index \"level_-1\" gave the sort order (read forward), and the read stopped once the limit was reached."
                     *       ],
                     *       "plan": [
                     *         {
                     *           "Plan": {
                     *             "Node Type": "Limit"
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        collection: string;
                        indexesUsed: string[];
                        /** @description The plan in words: which index found the documents and which gave the sort order */
                        summary: string[];
                        /** @description PostgreSQL's EXPLAIN (FORMAT JSON) */
                        plan: unknown;
                    };
                };
            };
        };
    };
    liveCountDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "level": {
                 *           "$gte": 10
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "count": 42
                     *     }
                     */
                    "application/json": {
                        count: number;
                    };
                };
            };
        };
    };
    liveInsertDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "displayName": "Ada",
                 *         "level": 12
                 *       }
                 *     ]
                 */
                "application/json": {
                    [key: string]: unknown;
                }[] | {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description the documents as stored, with their _id */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "_id": {
                     *           "$oid": "6740a1b2c3d4e5f601234567"
                     *         },
                     *         "displayName": "Ada",
                     *         "level": 12
                     *       }
                     *     ]
                     */
                    "application/json": {
                        [key: string]: unknown;
                    }[];
                };
            };
        };
    };
    liveSaveDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "_id": {
                 *         "$oid": "6740a1b2c3d4e5f601234567"
                 *       },
                 *       "displayName": "Ada",
                 *       "level": 12,
                 *       "created": {
                 *         "$date": {
                 *           "$numberLong": "1795435200000"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "_id": {
                     *         "$oid": "6740a1b2c3d4e5f601234567"
                     *       },
                     *       "displayName": "Ada",
                     *       "level": 12,
                     *       "created": {
                     *         "$date": {
                     *           "$numberLong": "1795435200000"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    liveUpdateDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "displayName": "Ada"
                 *       },
                 *       "update": {
                 *         "$inc": {
                 *           "level": 1
                 *         }
                 *       },
                 *       "multi": false
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                    /** @description update operators ($set, $inc...) */
                    update: {
                        [key: string]: unknown;
                    };
                    /** @description one filter per $[<identifier>] of the update, on that identifier (e.g. [{"e.score": {"$gte": 10}}]) */
                    arrayFilters?: {
                        [key: string]: unknown;
                    }[];
                    /** @default false */
                    multi?: boolean;
                    /** @default false */
                    upsert?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "matchedCount": 1,
                     *       "modifiedCount": 1,
                     *       "upsertedCount": 0,
                     *       "upsertedId": null
                     *     }
                     */
                    "application/json": {
                        matchedCount: number;
                        modifiedCount: number;
                        upsertedCount: number;
                        /** @description the _id of the inserted document (extended JSON), or null */
                        upsertedId: unknown;
                    };
                };
            };
        };
    };
    liveRemoveDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "level": {
                 *           "$lt": 2
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "deletedCount": 3,
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        deletedCount: number;
                        message: string;
                    };
                };
            };
        };
    };
    liveAggregate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        /** @description the pipeline: an array of stages */
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "$match": {
                 *           "level": {
                 *             "$gte": 10
                 *           }
                 *         }
                 *       },
                 *       {
                 *         "$group": {
                 *           "_id": null,
                 *           "players": {
                 *             "$sum": 1
                 *           }
                 *         }
                 *       }
                 *     ]
                 */
                "application/json": {
                    [key: string]: unknown;
                }[];
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "_id": null,
                     *         "players": 42
                     *       }
                     *     ]
                     */
                    "application/json": {
                        [key: string]: unknown;
                    }[];
                };
            };
        };
    };
    liveFindAndModify: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "displayName": "Ada"
                 *       },
                 *       "update": {
                 *         "$inc": {
                 *           "level": 1
                 *         }
                 *       },
                 *       "new": true
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                    sort?: {
                        [key: string]: 1 | -1;
                    };
                    /** @description update operators, or a replacement document */
                    update?: {
                        [key: string]: unknown;
                    };
                    /** @description one filter per $[<identifier>] of the update, on that identifier (e.g. [{"e.score": {"$gte": 10}}]) */
                    arrayFilters?: {
                        [key: string]: unknown;
                    }[];
                    /**
                     * @description remove the document instead
                     * @default false
                     */
                    remove?: boolean;
                    /**
                     * @description answer the document after the update
                     * @default false
                     */
                    new?: boolean;
                    /** @default false */
                    upsert?: boolean;
                    /** @description a projection of value */
                    fields?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "value": {
                     *         "_id": {
                     *           "$oid": "6740a1b2c3d4e5f601234567"
                     *         },
                     *         "displayName": "Ada",
                     *         "level": 13,
                     *         "created": {
                     *           "$date": {
                     *             "$numberLong": "1795435200000"
                     *           }
                     *         }
                     *       },
                     *       "lastErrorObject": {
                     *         "n": 1,
                     *         "updatedExisting": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description the document before (or, with new, after); null */
                        value: {
                            [key: string]: unknown;
                        } | (never | null);
                        lastErrorObject: {
                            n: number;
                            updatedExisting?: boolean;
                            /** @description the _id of the inserted document (extended JSON) */
                            upserted?: unknown;
                        };
                    };
                };
            };
        };
    };
    liveDistinct: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "key": "country",
                 *       "query": {
                 *         "level": {
                 *           "$gte": 10
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description a field path */
                    key: string;
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "values": [
                     *         "FR",
                     *         "GB",
                     *         "US"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description the different values, in BSON order (extended JSON) */
                        values: unknown[];
                    };
                };
            };
        };
    };
    liveListIndexes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "v": 2,
                     *         "key": {
                     *           "_id": 1
                     *         },
                     *         "name": "_id_"
                     *       },
                     *       {
                     *         "v": 2,
                     *         "key": {
                     *           "level": -1
                     *         },
                     *         "name": "level_-1"
                     *       }
                     *     ]
                     */
                    "application/json": {
                        v: number;
                        key: {
                            [key: string]: 1 | -1;
                        };
                        name: string;
                        unique?: boolean;
                    }[];
                };
            };
        };
    };
    liveCreateIndex: {
        parameters: {
            query?: {
                /** @description true for a unique index */
                unique?: string;
            };
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
                indexName: string;
            };
            cookie?: never;
        };
        /** @description key map: field path to 1 (ascending) or -1 (descending) */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "level": -1,
                 *       "country": 1
                 *     }
                 */
                "application/json": {
                    [key: string]: 1 | -1;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    liveDropIndex: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
                indexName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    previewListCollections: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "name": "player",
                     *         "optionGroup": "System",
                     *         "actions": [
                     *           "FIND",
                     *           "COUNT",
                     *           "UPDATE",
                     *           "STATS"
                     *         ]
                     *       }
                     *     ]
                     */
                    "application/json": {
                        name: string;
                        optionGroup: string;
                        actions: string[];
                    }[];
                };
            };
        };
    };
    previewGetDatabaseStats: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "db": "k7Qd2mXp9LwZ4rTb8nYc",
                     *       "stage": "preview",
                     *       "collections": 5,
                     *       "objects": 1200,
                     *       "avgObjSize": 180,
                     *       "dataSize": 216000,
                     *       "indexes": 6,
                     *       "indexSize": 65536
                     *     }
                     */
                    "application/json": {
                        db: string;
                        stage: string;
                        collections: number;
                        objects: number;
                        avgObjSize: number;
                        dataSize: number;
                        indexes: number;
                        indexSize: number;
                    };
                };
            };
        };
    };
    previewGetCollectionStats: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ns": "k7Qd2mXp9LwZ4rTb8nYc.player",
                     *       "count": 1000,
                     *       "size": 180000,
                     *       "avgObjSize": 180,
                     *       "nindexes": 2,
                     *       "totalIndexSize": 49152,
                     *       "indexSizes": {
                     *         "_id_": 32768,
                     *         "level_-1": 16384
                     *       }
                     *     }
                     */
                    "application/json": {
                        ns: string;
                        count: number;
                        size: number;
                        avgObjSize: number;
                        nindexes: number;
                        totalIndexSize: number;
                        indexSizes: {
                            [key: string]: number;
                        };
                    };
                };
            };
        };
    };
    previewDropCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    previewCreateMetaCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    previewCreateRuntimeCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    previewFindDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "level": {
                 *           "$gte": 10
                 *         }
                 *       },
                 *       "fields": {
                 *         "displayName": 1
                 *       },
                 *       "sort": {
                 *         "level": -1
                 *       },
                 *       "limit": 20
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                    /** @description a projection */
                    fields?: {
                        [key: string]: unknown;
                    };
                    sort?: {
                        [key: string]: 1 | -1;
                    };
                    skip?: number;
                    /** @description 0, absent or above 10000: 10000 */
                    limit?: number;
                    /** @description an index name or keys; checked to exist, not forced */
                    hint?: string | {
                        [key: string]: 1 | -1;
                    };
                    /** @description accepted and left alone */
                    comment?: unknown;
                    /** @description checked between batches; 0: the server limit only */
                    maxTimeMS?: number;
                    /** @description accepted; the answer is one batch */
                    batchSize?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "_id": {
                     *           "$oid": "6740a1b2c3d4e5f601234567"
                     *         },
                     *         "displayName": "Ada",
                     *         "level": 12,
                     *         "created": {
                     *           "$date": {
                     *             "$numberLong": "1795435200000"
                     *           }
                     *         }
                     *       }
                     *     ]
                     */
                    "application/json": {
                        [key: string]: unknown;
                    }[];
                };
            };
        };
    };
    previewExplainFind: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "level": {
                 *           "$gte": 10
                 *         }
                 *       },
                 *       "fields": {
                 *         "displayName": 1
                 *       },
                 *       "sort": {
                 *         "level": -1
                 *       },
                 *       "limit": 20
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                    /** @description a projection */
                    fields?: {
                        [key: string]: unknown;
                    };
                    sort?: {
                        [key: string]: 1 | -1;
                    };
                    skip?: number;
                    /** @description 0, absent or above 10000: 10000 */
                    limit?: number;
                    /** @description an index name or keys; checked to exist, not forced */
                    hint?: string | {
                        [key: string]: 1 | -1;
                    };
                    /** @description accepted and left alone */
                    comment?: unknown;
                    /** @description checked between batches; 0: the server limit only */
                    maxTimeMS?: number;
                    /** @description accepted; the answer is one batch */
                    batchSize?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "collection": "player",
                     *       "indexesUsed": [
                     *         "level_-1"
                     *       ],
                     *       "summary": [
                     *         "The index \"level_-1\" found the matching documents on \"level\".",
                     *         "The index \"level_-1\" gave the sort order (read forward), and the read stopped once the limit was reached."
                     *       ],
                     *       "plan": [
                     *         {
                     *           "Plan": {
                     *             "Node Type": "Limit"
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        collection: string;
                        indexesUsed: string[];
                        /** @description The plan in words: which index found the documents and which gave the sort order */
                        summary: string[];
                        /** @description PostgreSQL's EXPLAIN (FORMAT JSON) */
                        plan: unknown;
                    };
                };
            };
        };
    };
    previewCountDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "level": {
                 *           "$gte": 10
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "count": 42
                     *     }
                     */
                    "application/json": {
                        count: number;
                    };
                };
            };
        };
    };
    previewInsertDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "displayName": "Ada",
                 *         "level": 12
                 *       }
                 *     ]
                 */
                "application/json": {
                    [key: string]: unknown;
                }[] | {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description the documents as stored, with their _id */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "_id": {
                     *           "$oid": "6740a1b2c3d4e5f601234567"
                     *         },
                     *         "displayName": "Ada",
                     *         "level": 12
                     *       }
                     *     ]
                     */
                    "application/json": {
                        [key: string]: unknown;
                    }[];
                };
            };
        };
    };
    previewSaveDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "_id": {
                 *         "$oid": "6740a1b2c3d4e5f601234567"
                 *       },
                 *       "displayName": "Ada",
                 *       "level": 12,
                 *       "created": {
                 *         "$date": {
                 *           "$numberLong": "1795435200000"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "_id": {
                     *         "$oid": "6740a1b2c3d4e5f601234567"
                     *       },
                     *       "displayName": "Ada",
                     *       "level": 12,
                     *       "created": {
                     *         "$date": {
                     *           "$numberLong": "1795435200000"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    previewUpdateDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "displayName": "Ada"
                 *       },
                 *       "update": {
                 *         "$inc": {
                 *           "level": 1
                 *         }
                 *       },
                 *       "multi": false
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                    /** @description update operators ($set, $inc...) */
                    update: {
                        [key: string]: unknown;
                    };
                    /** @description one filter per $[<identifier>] of the update, on that identifier (e.g. [{"e.score": {"$gte": 10}}]) */
                    arrayFilters?: {
                        [key: string]: unknown;
                    }[];
                    /** @default false */
                    multi?: boolean;
                    /** @default false */
                    upsert?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "matchedCount": 1,
                     *       "modifiedCount": 1,
                     *       "upsertedCount": 0,
                     *       "upsertedId": null
                     *     }
                     */
                    "application/json": {
                        matchedCount: number;
                        modifiedCount: number;
                        upsertedCount: number;
                        /** @description the _id of the inserted document (extended JSON), or null */
                        upsertedId: unknown;
                    };
                };
            };
        };
    };
    previewRemoveDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "level": {
                 *           "$lt": 2
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "deletedCount": 3,
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        deletedCount: number;
                        message: string;
                    };
                };
            };
        };
    };
    previewAggregate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        /** @description the pipeline: an array of stages */
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "$match": {
                 *           "level": {
                 *             "$gte": 10
                 *           }
                 *         }
                 *       },
                 *       {
                 *         "$group": {
                 *           "_id": null,
                 *           "players": {
                 *             "$sum": 1
                 *           }
                 *         }
                 *       }
                 *     ]
                 */
                "application/json": {
                    [key: string]: unknown;
                }[];
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "_id": null,
                     *         "players": 42
                     *       }
                     *     ]
                     */
                    "application/json": {
                        [key: string]: unknown;
                    }[];
                };
            };
        };
    };
    previewFindAndModify: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "displayName": "Ada"
                 *       },
                 *       "update": {
                 *         "$inc": {
                 *           "level": 1
                 *         }
                 *       },
                 *       "new": true
                 *     }
                 */
                "application/json": {
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                    sort?: {
                        [key: string]: 1 | -1;
                    };
                    /** @description update operators, or a replacement document */
                    update?: {
                        [key: string]: unknown;
                    };
                    /** @description one filter per $[<identifier>] of the update, on that identifier (e.g. [{"e.score": {"$gte": 10}}]) */
                    arrayFilters?: {
                        [key: string]: unknown;
                    }[];
                    /**
                     * @description remove the document instead
                     * @default false
                     */
                    remove?: boolean;
                    /**
                     * @description answer the document after the update
                     * @default false
                     */
                    new?: boolean;
                    /** @default false */
                    upsert?: boolean;
                    /** @description a projection of value */
                    fields?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "value": {
                     *         "_id": {
                     *           "$oid": "6740a1b2c3d4e5f601234567"
                     *         },
                     *         "displayName": "Ada",
                     *         "level": 13,
                     *         "created": {
                     *           "$date": {
                     *             "$numberLong": "1795435200000"
                     *           }
                     *         }
                     *       },
                     *       "lastErrorObject": {
                     *         "n": 1,
                     *         "updatedExisting": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description the document before (or, with new, after); null */
                        value: {
                            [key: string]: unknown;
                        } | (never | null);
                        lastErrorObject: {
                            n: number;
                            updatedExisting?: boolean;
                            /** @description the _id of the inserted document (extended JSON) */
                            upserted?: unknown;
                        };
                    };
                };
            };
        };
    };
    previewDistinct: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "key": "country",
                 *       "query": {
                 *         "level": {
                 *           "$gte": 10
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description a field path */
                    key: string;
                    /** @description a MongoDB query filter */
                    query?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "values": [
                     *         "FR",
                     *         "GB",
                     *         "US"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description the different values, in BSON order (extended JSON) */
                        values: unknown[];
                    };
                };
            };
        };
    };
    previewListIndexes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "v": 2,
                     *         "key": {
                     *           "_id": 1
                     *         },
                     *         "name": "_id_"
                     *       },
                     *       {
                     *         "v": 2,
                     *         "key": {
                     *           "level": -1
                     *         },
                     *         "name": "level_-1"
                     *       }
                     *     ]
                     */
                    "application/json": {
                        v: number;
                        key: {
                            [key: string]: 1 | -1;
                        };
                        name: string;
                        unique?: boolean;
                    }[];
                };
            };
        };
    };
    previewCreateIndex: {
        parameters: {
            query?: {
                /** @description true for a unique index */
                unique?: string;
            };
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
                indexName: string;
            };
            cookie?: never;
        };
        /** @description key map: field path to 1 (ascending) or -1 (descending) */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "level": -1,
                 *       "country": 1
                 *     }
                 */
                "application/json": {
                    [key: string]: 1 | -1;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    previewDropIndex: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                collectionName: string;
                indexName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "OK"
                     *     }
                     */
                    "application/json": {
                        message: string;
                    };
                };
            };
        };
    };
    liveListDataTypes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "shortCode": "inventory",
                     *         "name": "Inventory",
                     *         "fields": [
                     *           {
                     *             "name": "owner",
                     *             "type": "string"
                     *           }
                     *         ]
                     *       }
                     *     ]
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        fields: {
                            name: string;
                            type: string;
                        }[];
                    }[];
                };
            };
        };
    };
    liveDeleteAllItems: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                type: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS",
                     *       "deletedCount": 1
                     *     }
                     */
                    "application/json": {
                        message: string;
                        deletedCount: number;
                    };
                };
            };
        };
    };
    liveQueryItems: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                type: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "condition": "AND",
                 *         "rules": [
                 *           {
                 *             "field": "owner",
                 *             "operator": "EQ",
                 *             "value": "ada"
                 *           }
                 *         ]
                 *       },
                 *       "sort": "owner",
                 *       "limit": 50
                 *     }
                 */
                "application/json": {
                    query?: {
                        condition: "AND" | "OR" | "NOT";
                        rules: {
                            [key: string]: unknown;
                        }[];
                    };
                    /** @description one declared field */
                    sort?: string;
                    /** @default true */
                    asc?: boolean;
                    offset?: number;
                    /** @default 100 */
                    limit?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "type": "inventory",
                     *           "id": "ada-sword",
                     *           "data": {
                     *             "owner": "ada",
                     *             "item": "sword",
                     *             "level": 3
                     *           },
                     *           "version": 2,
                     *           "expiresAt": null
                     *         }
                     *       ],
                     *       "nextOffset": null
                     *     }
                     */
                    "application/json": {
                        items: {
                            type: string;
                            id: string;
                            /** @description the item (extended JSON, relaxed) */
                            data: unknown;
                            version: number;
                            /** @description ISO 8601 */
                            expiresAt: string | null;
                        }[];
                        nextOffset: number | null;
                    };
                };
            };
        };
    };
    liveGetItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                type: string;
                itemId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "inventory",
                     *       "id": "ada-sword",
                     *       "data": {
                     *         "owner": "ada",
                     *         "item": "sword",
                     *         "level": 3
                     *       },
                     *       "version": 2,
                     *       "expiresAt": null
                     *     }
                     */
                    "application/json": {
                        type: string;
                        id: string;
                        /** @description the item (extended JSON, relaxed) */
                        data: unknown;
                        version: number;
                        /** @description ISO 8601 */
                        expiresAt: string | null;
                    };
                };
            };
        };
    };
    livePutItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                type: string;
                itemId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "data": {
                 *         "owner": "ada",
                 *         "item": "sword",
                 *         "level": 3
                 *       },
                 *       "ttl": 86400,
                 *       "versionCheck": 1
                 *     }
                 */
                "application/json": {
                    /** @description a JSON object (extended JSON accepted) */
                    data: unknown;
                    /** @description seconds until the item is gone; absent, null or 0: never */
                    ttl?: number | null;
                    /** @description write only if the stored version is this; 0: only if absent */
                    versionCheck?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "inventory",
                     *       "id": "ada-sword",
                     *       "data": {
                     *         "owner": "ada",
                     *         "item": "sword",
                     *         "level": 3
                     *       },
                     *       "version": 2,
                     *       "expiresAt": null
                     *     }
                     */
                    "application/json": {
                        type: string;
                        id: string;
                        /** @description the item (extended JSON, relaxed) */
                        data: unknown;
                        version: number;
                        /** @description ISO 8601 */
                        expiresAt: string | null;
                    };
                };
            };
        };
    };
    liveDeleteItem: {
        parameters: {
            query?: {
                versionCheck?: number;
            };
            header?: never;
            path: {
                gameApiKey: string;
                type: string;
                itemId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS",
                     *       "deletedCount": 1
                     *     }
                     */
                    "application/json": {
                        message: string;
                        deletedCount: number;
                    };
                };
            };
        };
    };
    liveExportMongo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "url": "https://playbase.example/preview/restv2/game/k7Qd2mXp9LwZ4rTb8nYc/export/download/mongo-20261122T120000Z-3f9a.ndjson.gz?expires=1795521600&signature=9b1c2d3e4f5a6b7c",
                     *       "expiresAt": "2026-11-23T12:00:00.000Z",
                     *       "count": 1200,
                     *       "bytes": 48213
                     *     }
                     */
                    "application/json": {
                        /** @description presigned download URL; needs no other credential */
                        url: string;
                        /** @description ISO 8601; the URL is refused (403) from then on, 24 hours after the export */
                        expiresAt: string;
                        /** @description documents (mongo) or items (data) in the file */
                        count: number;
                        /** @description size of the gzip file */
                        bytes: number;
                    };
                };
            };
        };
    };
    liveExportData: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "url": "https://playbase.example/preview/restv2/game/k7Qd2mXp9LwZ4rTb8nYc/export/download/mongo-20261122T120000Z-3f9a.ndjson.gz?expires=1795521600&signature=9b1c2d3e4f5a6b7c",
                     *       "expiresAt": "2026-11-23T12:00:00.000Z",
                     *       "count": 1200,
                     *       "bytes": 48213
                     *     }
                     */
                    "application/json": {
                        /** @description presigned download URL; needs no other credential */
                        url: string;
                        /** @description ISO 8601; the URL is refused (403) from then on, 24 hours after the export */
                        expiresAt: string;
                        /** @description documents (mongo) or items (data) in the file */
                        count: number;
                        /** @description size of the gzip file */
                        bytes: number;
                    };
                };
            };
        };
    };
    liveDownloadExport: {
        parameters: {
            query?: {
                expires?: unknown;
                signature?: unknown;
            };
            header?: never;
            path: {
                game: string;
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the export file: gzip of newline-delimited JSON */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example (gzip of lines like {"collection": "player", "document": {...}}) */
                    "application/gzip": string;
                };
            };
        };
    };
    liveImportDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        /** @description the export file as downloaded (application/gzip), or its lines (application/x-ndjson): one JSON object a line, in extended JSON */
        requestBody: {
            content: {
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/gzip": unknown;
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/x-gzip": unknown;
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/x-ndjson": unknown;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "imported": 1250,
                     *       "collections": {
                     *         "player": 1200,
                     *         "script.inventory": 50
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description records written: documents (mongo) or items (data) */
                        imported: number;
                        /** @description records written by collection (mongo) or data type (data) */
                        collections: {
                            [key: string]: number;
                        };
                    };
                };
            };
        };
    };
    liveImportDataItems: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        /** @description the export file as downloaded (application/gzip), or its lines (application/x-ndjson): one JSON object a line, in extended JSON */
        requestBody: {
            content: {
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/gzip": unknown;
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/x-gzip": unknown;
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/x-ndjson": unknown;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "imported": 1250,
                     *       "collections": {
                     *         "player": 1200,
                     *         "script.inventory": 50
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description records written: documents (mongo) or items (data) */
                        imported: number;
                        /** @description records written by collection (mongo) or data type (data) */
                        collections: {
                            [key: string]: number;
                        };
                    };
                };
            };
        };
    };
    previewListDataTypes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "shortCode": "inventory",
                     *         "name": "Inventory",
                     *         "fields": [
                     *           {
                     *             "name": "owner",
                     *             "type": "string"
                     *           }
                     *         ]
                     *       }
                     *     ]
                     */
                    "application/json": {
                        shortCode: string;
                        name: string;
                        fields: {
                            name: string;
                            type: string;
                        }[];
                    }[];
                };
            };
        };
    };
    previewDeleteAllItems: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                type: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS",
                     *       "deletedCount": 1
                     *     }
                     */
                    "application/json": {
                        message: string;
                        deletedCount: number;
                    };
                };
            };
        };
    };
    previewQueryItems: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                type: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": {
                 *         "condition": "AND",
                 *         "rules": [
                 *           {
                 *             "field": "owner",
                 *             "operator": "EQ",
                 *             "value": "ada"
                 *           }
                 *         ]
                 *       },
                 *       "sort": "owner",
                 *       "limit": 50
                 *     }
                 */
                "application/json": {
                    query?: {
                        condition: "AND" | "OR" | "NOT";
                        rules: {
                            [key: string]: unknown;
                        }[];
                    };
                    /** @description one declared field */
                    sort?: string;
                    /** @default true */
                    asc?: boolean;
                    offset?: number;
                    /** @default 100 */
                    limit?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "type": "inventory",
                     *           "id": "ada-sword",
                     *           "data": {
                     *             "owner": "ada",
                     *             "item": "sword",
                     *             "level": 3
                     *           },
                     *           "version": 2,
                     *           "expiresAt": null
                     *         }
                     *       ],
                     *       "nextOffset": null
                     *     }
                     */
                    "application/json": {
                        items: {
                            type: string;
                            id: string;
                            /** @description the item (extended JSON, relaxed) */
                            data: unknown;
                            version: number;
                            /** @description ISO 8601 */
                            expiresAt: string | null;
                        }[];
                        nextOffset: number | null;
                    };
                };
            };
        };
    };
    previewGetItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                type: string;
                itemId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "inventory",
                     *       "id": "ada-sword",
                     *       "data": {
                     *         "owner": "ada",
                     *         "item": "sword",
                     *         "level": 3
                     *       },
                     *       "version": 2,
                     *       "expiresAt": null
                     *     }
                     */
                    "application/json": {
                        type: string;
                        id: string;
                        /** @description the item (extended JSON, relaxed) */
                        data: unknown;
                        version: number;
                        /** @description ISO 8601 */
                        expiresAt: string | null;
                    };
                };
            };
        };
    };
    previewPutItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                type: string;
                itemId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "data": {
                 *         "owner": "ada",
                 *         "item": "sword",
                 *         "level": 3
                 *       },
                 *       "ttl": 86400,
                 *       "versionCheck": 1
                 *     }
                 */
                "application/json": {
                    /** @description a JSON object (extended JSON accepted) */
                    data: unknown;
                    /** @description seconds until the item is gone; absent, null or 0: never */
                    ttl?: number | null;
                    /** @description write only if the stored version is this; 0: only if absent */
                    versionCheck?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "inventory",
                     *       "id": "ada-sword",
                     *       "data": {
                     *         "owner": "ada",
                     *         "item": "sword",
                     *         "level": 3
                     *       },
                     *       "version": 2,
                     *       "expiresAt": null
                     *     }
                     */
                    "application/json": {
                        type: string;
                        id: string;
                        /** @description the item (extended JSON, relaxed) */
                        data: unknown;
                        version: number;
                        /** @description ISO 8601 */
                        expiresAt: string | null;
                    };
                };
            };
        };
    };
    previewDeleteItem: {
        parameters: {
            query?: {
                versionCheck?: number;
            };
            header?: never;
            path: {
                gameApiKey: string;
                type: string;
                itemId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "SUCCESS",
                     *       "deletedCount": 1
                     *     }
                     */
                    "application/json": {
                        message: string;
                        deletedCount: number;
                    };
                };
            };
        };
    };
    previewExportMongo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "url": "https://playbase.example/preview/restv2/game/k7Qd2mXp9LwZ4rTb8nYc/export/download/mongo-20261122T120000Z-3f9a.ndjson.gz?expires=1795521600&signature=9b1c2d3e4f5a6b7c",
                     *       "expiresAt": "2026-11-23T12:00:00.000Z",
                     *       "count": 1200,
                     *       "bytes": 48213
                     *     }
                     */
                    "application/json": {
                        /** @description presigned download URL; needs no other credential */
                        url: string;
                        /** @description ISO 8601; the URL is refused (403) from then on, 24 hours after the export */
                        expiresAt: string;
                        /** @description documents (mongo) or items (data) in the file */
                        count: number;
                        /** @description size of the gzip file */
                        bytes: number;
                    };
                };
            };
        };
    };
    previewExportData: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "url": "https://playbase.example/preview/restv2/game/k7Qd2mXp9LwZ4rTb8nYc/export/download/mongo-20261122T120000Z-3f9a.ndjson.gz?expires=1795521600&signature=9b1c2d3e4f5a6b7c",
                     *       "expiresAt": "2026-11-23T12:00:00.000Z",
                     *       "count": 1200,
                     *       "bytes": 48213
                     *     }
                     */
                    "application/json": {
                        /** @description presigned download URL; needs no other credential */
                        url: string;
                        /** @description ISO 8601; the URL is refused (403) from then on, 24 hours after the export */
                        expiresAt: string;
                        /** @description documents (mongo) or items (data) in the file */
                        count: number;
                        /** @description size of the gzip file */
                        bytes: number;
                    };
                };
            };
        };
    };
    previewDownloadExport: {
        parameters: {
            query?: {
                expires?: unknown;
                signature?: unknown;
            };
            header?: never;
            path: {
                game: string;
                file: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the export file: gzip of newline-delimited JSON */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example (gzip of lines like {"collection": "player", "document": {...}}) */
                    "application/gzip": string;
                };
            };
        };
    };
    previewImportDocuments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        /** @description the export file as downloaded (application/gzip), or its lines (application/x-ndjson): one JSON object a line, in extended JSON */
        requestBody: {
            content: {
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/gzip": unknown;
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/x-gzip": unknown;
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/x-ndjson": unknown;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "imported": 1250,
                     *       "collections": {
                     *         "player": 1200,
                     *         "script.inventory": 50
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description records written: documents (mongo) or items (data) */
                        imported: number;
                        /** @description records written by collection (mongo) or data type (data) */
                        collections: {
                            [key: string]: number;
                        };
                    };
                };
            };
        };
    };
    previewImportDataItems: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        /** @description the export file as downloaded (application/gzip), or its lines (application/x-ndjson): one JSON object a line, in extended JSON */
        requestBody: {
            content: {
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/gzip": unknown;
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/x-gzip": unknown;
                /** @example {"collection": "player", "document": {"_id": {"$oid": "6560f1a2b3c4d5e6f7a8b9c0"}, "displayName": "Ada"}} */
                "application/x-ndjson": unknown;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "imported": 1250,
                     *       "collections": {
                     *         "player": 1200,
                     *         "script.inventory": 50
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description records written: documents (mongo) or items (data) */
                        imported: number;
                        /** @description records written by collection (mongo) or data type (data) */
                        collections: {
                            [key: string]: number;
                        };
                    };
                };
            };
        };
    };
    liveSearchPlayers: {
        parameters: {
            query: {
                /** @description the text to find */
                q: string;
                /** @description the one field to match; absent: any of them */
                by?: "userName" | "displayName" | "id" | "externalId";
                skip?: number;
                /** @description default 20 */
                limit?: number;
            };
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "players": [
                     *         {
                     *           "id": "6b03a1c2d4e5f60718293a4b",
                     *           "userName": "ada",
                     *           "displayName": "Ada",
                     *           "created": "2026-11-20T10:00:00.000Z",
                     *           "lastSeen": "2026-11-24T08:30:00.000Z",
                     *           "banned": false
                     *         }
                     *       ],
                     *       "skip": 0,
                     *       "limit": 20,
                     *       "more": false
                     *     }
                     */
                    "application/json": {
                        players: {
                            id: string;
                            userName: string | null;
                            displayName: string | null;
                            created: string | null;
                            lastSeen: string | null;
                            banned: boolean;
                        }[];
                        skip: number;
                        limit: number;
                        /** @description true when another page follows */
                        more: boolean;
                    };
                };
            };
        };
    };
    liveGetPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6b03a1c2d4e5f60718293a4b",
                     *       "userName": "ada",
                     *       "displayName": "Ada",
                     *       "created": "2026-11-20T10:00:00.000Z",
                     *       "lastSeen": "2026-11-24T08:30:00.000Z",
                     *       "banned": false,
                     *       "ban": null,
                     *       "currencies": {
                     *         "currency1": 120,
                     *         "currency2": 0,
                     *         "currency3": 0,
                     *         "currency4": 0,
                     *         "currency5": 0,
                     *         "currency6": 0
                     *       },
                     *       "scriptData": {
                     *         "level": 7
                     *       },
                     *       "privateData": {},
                     *       "externalIds": {
                     *         "FB": "1000123"
                     *       },
                     *       "sessionsResetAt": null
                     *     }
                     */
                    "application/json": {
                        id: string;
                        userName: string | null;
                        displayName: string | null;
                        created: string | null;
                        lastSeen: string | null;
                        banned: boolean;
                        ban: {
                            at: string | null;
                            by: string | null;
                            reason: string | null;
                        } | null;
                        currencies: {
                            [key: string]: unknown;
                        };
                        scriptData: {
                            [key: string]: unknown;
                        };
                        privateData: {
                            [key: string]: unknown;
                        };
                        externalIds: {
                            [key: string]: unknown;
                        };
                        sessionsResetAt: string | null;
                    };
                };
            };
        };
    };
    liveErasePlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "player": 1,
                     *       "leaderboardEntries": 2,
                     *       "leaderboardDocuments": 0,
                     *       "runningTotals": 1,
                     *       "dataItems": 1,
                     *       "devices": 0,
                     *       "loginFailures": 0
                     *     }
                     */
                    "application/json": {
                        player: number;
                        leaderboardEntries: number;
                        leaderboardDocuments: number;
                        runningTotals: number;
                        dataItems: number;
                        devices: number;
                        loginFailures: number;
                    };
                };
            };
        };
    };
    liveEditPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "displayName": "Ada L.",
                 *       "currencies": {
                 *         "currency1": 150
                 *       },
                 *       "scriptData": {
                 *         "level": 8
                 *       }
                 *     }
                 */
                "application/json": {
                    displayName?: string;
                    currencies?: {
                        currency1?: number;
                        currency2?: number;
                        currency3?: number;
                        currency4?: number;
                        currency5?: number;
                        currency6?: number;
                    };
                    scriptData?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6b03a1c2d4e5f60718293a4b",
                     *       "userName": "ada",
                     *       "displayName": "Ada",
                     *       "created": "2026-11-20T10:00:00.000Z",
                     *       "lastSeen": "2026-11-24T08:30:00.000Z",
                     *       "banned": false,
                     *       "ban": null,
                     *       "currencies": {
                     *         "currency1": 120,
                     *         "currency2": 0,
                     *         "currency3": 0,
                     *         "currency4": 0,
                     *         "currency5": 0,
                     *         "currency6": 0
                     *       },
                     *       "scriptData": {
                     *         "level": 7
                     *       },
                     *       "privateData": {},
                     *       "externalIds": {
                     *         "FB": "1000123"
                     *       },
                     *       "sessionsResetAt": null
                     *     }
                     */
                    "application/json": {
                        id: string;
                        userName: string | null;
                        displayName: string | null;
                        created: string | null;
                        lastSeen: string | null;
                        banned: boolean;
                        ban: {
                            at: string | null;
                            by: string | null;
                            reason: string | null;
                        } | null;
                        currencies: {
                            [key: string]: unknown;
                        };
                        scriptData: {
                            [key: string]: unknown;
                        };
                        privateData: {
                            [key: string]: unknown;
                        };
                        externalIds: {
                            [key: string]: unknown;
                        };
                        sessionsResetAt: string | null;
                    };
                };
            };
        };
    };
    liveBanPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reason": "cheating: impossible scores"
                 *     }
                 */
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6b03a1c2d4e5f60718293a4b",
                     *       "userName": "ada",
                     *       "displayName": "Ada",
                     *       "created": "2026-11-20T10:00:00.000Z",
                     *       "lastSeen": "2026-11-24T08:30:00.000Z",
                     *       "banned": false,
                     *       "ban": null,
                     *       "currencies": {
                     *         "currency1": 120,
                     *         "currency2": 0,
                     *         "currency3": 0,
                     *         "currency4": 0,
                     *         "currency5": 0,
                     *         "currency6": 0
                     *       },
                     *       "scriptData": {
                     *         "level": 7
                     *       },
                     *       "privateData": {},
                     *       "externalIds": {
                     *         "FB": "1000123"
                     *       },
                     *       "sessionsResetAt": null
                     *     }
                     */
                    "application/json": {
                        id: string;
                        userName: string | null;
                        displayName: string | null;
                        created: string | null;
                        lastSeen: string | null;
                        banned: boolean;
                        ban: {
                            at: string | null;
                            by: string | null;
                            reason: string | null;
                        } | null;
                        currencies: {
                            [key: string]: unknown;
                        };
                        scriptData: {
                            [key: string]: unknown;
                        };
                        privateData: {
                            [key: string]: unknown;
                        };
                        externalIds: {
                            [key: string]: unknown;
                        };
                        sessionsResetAt: string | null;
                    };
                };
            };
        };
    };
    liveUnbanPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6b03a1c2d4e5f60718293a4b",
                     *       "userName": "ada",
                     *       "displayName": "Ada",
                     *       "created": "2026-11-20T10:00:00.000Z",
                     *       "lastSeen": "2026-11-24T08:30:00.000Z",
                     *       "banned": false,
                     *       "ban": null,
                     *       "currencies": {
                     *         "currency1": 120,
                     *         "currency2": 0,
                     *         "currency3": 0,
                     *         "currency4": 0,
                     *         "currency5": 0,
                     *         "currency6": 0
                     *       },
                     *       "scriptData": {
                     *         "level": 7
                     *       },
                     *       "privateData": {},
                     *       "externalIds": {
                     *         "FB": "1000123"
                     *       },
                     *       "sessionsResetAt": null
                     *     }
                     */
                    "application/json": {
                        id: string;
                        userName: string | null;
                        displayName: string | null;
                        created: string | null;
                        lastSeen: string | null;
                        banned: boolean;
                        ban: {
                            at: string | null;
                            by: string | null;
                            reason: string | null;
                        } | null;
                        currencies: {
                            [key: string]: unknown;
                        };
                        scriptData: {
                            [key: string]: unknown;
                        };
                        privateData: {
                            [key: string]: unknown;
                        };
                        externalIds: {
                            [key: string]: unknown;
                        };
                        sessionsResetAt: string | null;
                    };
                };
            };
        };
    };
    liveResetPlayerSessions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "storedSessions": 0,
                     *       "lockoutCleared": true
                     *     }
                     */
                    "application/json": {
                        storedSessions: number;
                        lockoutCleared: boolean;
                    };
                };
            };
        };
    };
    liveExportPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "exportedAt": "2026-11-24T09:00:00.000Z",
                     *       "game": "abcdefghij0123456789",
                     *       "stage": "preview",
                     *       "playerId": "6b03a1c2d4e5f60718293a4b",
                     *       "player": {
                     *         "_id": {
                     *           "$oid": "6b03a1c2d4e5f60718293a4b"
                     *         },
                     *         "userName": "ada",
                     *         "displayName": "Ada",
                     *         "currency1": 120
                     *       },
                     *       "passwordSet": true,
                     *       "devices": [],
                     *       "loginFailures": null,
                     *       "runningTotals": [
                     *         {
                     *           "collection": "HS-runningTotal",
                     *           "document": {
                     *             "_id": "6b03a1c2d4e5f60718293a4b",
                     *             "userId": "6b03a1c2d4e5f60718293a4b",
                     *             "SCORE": 120
                     *           }
                     *         }
                     *       ],
                     *       "leaderboardDocuments": [],
                     *       "leaderboardEntries": [
                     *         {
                     *           "leaderboard": "HSLB",
                     *           "partition": "",
                     *           "periodStart": "1970-01-01T00:00:00.000Z",
                     *           "values": [
                     *             120,
                     *             1
                     *           ],
                     *           "when": "2026-11-24T08:31:00.000Z",
                     *           "userName": "Ada"
                     *         }
                     *       ],
                     *       "dataItems": []
                     *     }
                     */
                    "application/json": {
                        exportedAt: string;
                        game: string;
                        stage: string;
                        playerId: string;
                        /** @description the player document (extended JSON), password hash withheld */
                        player: unknown;
                        passwordSet: boolean;
                        devices: string[];
                        loginFailures: {
                            failures: number;
                            lockedUntil: number;
                        } | null;
                        runningTotals: {
                            collection: string;
                            document: unknown;
                        }[];
                        leaderboardDocuments: {
                            collection: string;
                            document: unknown;
                        }[];
                        leaderboardEntries: unknown[];
                        dataItems: unknown[];
                    };
                };
            };
        };
    };
    liveListLeaderboards: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "shortCode": "HSLB",
                     *         "collection": "HSLB-leaderboard",
                     *         "resetFrequency": "WEEKLY",
                     *         "periodStart": "2026-11-23T00:00:00.000Z",
                     *         "nextReset": "2026-11-30T00:00:00.000Z",
                     *         "partitionAttributes": [
                     *           "COUNTRY"
                     *         ],
                     *         "fields": [
                     *           {
                     *             "attribute": "SCORE",
                     *             "sort": "DESC",
                     *             "ranks": true
                     *           }
                     *         ],
                     *         "boards": [
                     *           {
                     *             "shortCode": "HSLB",
                     *             "partition": "",
                     *             "partitionValues": {},
                     *             "entries": 2
                     *           },
                     *           {
                     *             "shortCode": "HSLB.COUNTRY.GB",
                     *             "partition": "COUNTRY.GB",
                     *             "partitionValues": {
                     *               "COUNTRY": "GB"
                     *             },
                     *             "entries": 1
                     *           }
                     *         ],
                     *         "morePartitions": false
                     *       }
                     *     ]
                     */
                    "application/json": {
                        shortCode: string;
                        collection: string;
                        resetFrequency: string;
                        periodStart: string | null;
                        nextReset: string | null;
                        partitionAttributes: string[];
                        fields: {
                            attribute: string;
                            sort: string;
                            ranks: boolean;
                        }[];
                        boards: {
                            shortCode: string;
                            partition: string;
                            partitionValues: {
                                [key: string]: unknown;
                            };
                            entries: number;
                        }[];
                        morePartitions: boolean;
                    }[];
                };
            };
        };
    };
    liveGetLeaderboard: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                /** @description LB, or LB.ATTR.VALUE for a partition */
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "HSLB",
                     *       "collection": "HSLB-leaderboard",
                     *       "resetFrequency": "WEEKLY",
                     *       "periodStart": "2026-11-23T00:00:00.000Z",
                     *       "nextReset": "2026-11-30T00:00:00.000Z",
                     *       "partitionAttributes": [
                     *         "COUNTRY"
                     *       ],
                     *       "fields": [
                     *         {
                     *           "attribute": "SCORE",
                     *           "sort": "DESC",
                     *           "ranks": true
                     *         }
                     *       ],
                     *       "boards": [
                     *         {
                     *           "shortCode": "HSLB",
                     *           "partition": "",
                     *           "partitionValues": {},
                     *           "entries": 2
                     *         },
                     *         {
                     *           "shortCode": "HSLB.COUNTRY.GB",
                     *           "partition": "COUNTRY.GB",
                     *           "partitionValues": {
                     *             "COUNTRY": "GB"
                     *           },
                     *           "entries": 1
                     *         }
                     *       ],
                     *       "morePartitions": false
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        collection: string;
                        resetFrequency: string;
                        periodStart: string | null;
                        nextReset: string | null;
                        partitionAttributes: string[];
                        fields: {
                            attribute: string;
                            sort: string;
                            ranks: boolean;
                        }[];
                        boards: {
                            shortCode: string;
                            partition: string;
                            partitionValues: {
                                [key: string]: unknown;
                            };
                            entries: number;
                        }[];
                        morePartitions: boolean;
                    };
                };
            };
        };
    };
    liveLeaderboardTopEntries: {
        parameters: {
            query?: {
                offset?: number;
                /** @description default 50 */
                count?: number;
            };
            header?: never;
            path: {
                gameApiKey: string;
                /** @description LB, or LB.ATTR.VALUE for a partition */
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "leaderboardShortCode": "HSLB",
                     *       "entries": [
                     *         {
                     *           "userId": "6b03a1c2d4e5f60718293a4b",
                     *           "userName": "Ada",
                     *           "SCORE": 120,
                     *           "when": "2026-11-24T08:31:00.000Z",
                     *           "rank": 1
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        leaderboardShortCode: string;
                        entries: {
                            [key: string]: unknown;
                        }[];
                        playerId?: string;
                    };
                };
            };
        };
    };
    liveLeaderboardEntriesAround: {
        parameters: {
            query?: {
                /** @description default 10 */
                count?: number;
            };
            header?: never;
            path: {
                gameApiKey: string;
                /** @description LB, or LB.ATTR.VALUE for a partition */
                shortCode: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "leaderboardShortCode": "HSLB",
                     *       "entries": [
                     *         {
                     *           "userId": "6b03a1c2d4e5f60718293a4b",
                     *           "userName": "Ada",
                     *           "SCORE": 120,
                     *           "when": "2026-11-24T08:31:00.000Z",
                     *           "rank": 1
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        leaderboardShortCode: string;
                        entries: {
                            [key: string]: unknown;
                        }[];
                        playerId?: string;
                    };
                };
            };
        };
    };
    liveDeleteLeaderboardEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                /** @description LB, or LB.ATTR.VALUE for a partition */
                shortCode: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "leaderboardShortCode": "HSLB",
                     *       "playerId": "6b03a1c2d4e5f60718293a4b",
                     *       "deleted": 1
                     *     }
                     */
                    "application/json": {
                        leaderboardShortCode: string;
                        playerId: string;
                        deleted: number;
                    };
                };
            };
        };
    };
    liveResetLeaderboard: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                /** @description LB, or LB.ATTR.VALUE for a partition */
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "leaderboardShortCode": "HSLB",
                     *       "boards": 3,
                     *       "entries": 240
                     *     }
                     */
                    "application/json": {
                        leaderboardShortCode: string;
                        boards: number;
                        entries: number;
                    };
                };
            };
        };
    };
    previewSearchPlayers: {
        parameters: {
            query: {
                /** @description the text to find */
                q: string;
                /** @description the one field to match; absent: any of them */
                by?: "userName" | "displayName" | "id" | "externalId";
                skip?: number;
                /** @description default 20 */
                limit?: number;
            };
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "players": [
                     *         {
                     *           "id": "6b03a1c2d4e5f60718293a4b",
                     *           "userName": "ada",
                     *           "displayName": "Ada",
                     *           "created": "2026-11-20T10:00:00.000Z",
                     *           "lastSeen": "2026-11-24T08:30:00.000Z",
                     *           "banned": false
                     *         }
                     *       ],
                     *       "skip": 0,
                     *       "limit": 20,
                     *       "more": false
                     *     }
                     */
                    "application/json": {
                        players: {
                            id: string;
                            userName: string | null;
                            displayName: string | null;
                            created: string | null;
                            lastSeen: string | null;
                            banned: boolean;
                        }[];
                        skip: number;
                        limit: number;
                        /** @description true when another page follows */
                        more: boolean;
                    };
                };
            };
        };
    };
    previewGetPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6b03a1c2d4e5f60718293a4b",
                     *       "userName": "ada",
                     *       "displayName": "Ada",
                     *       "created": "2026-11-20T10:00:00.000Z",
                     *       "lastSeen": "2026-11-24T08:30:00.000Z",
                     *       "banned": false,
                     *       "ban": null,
                     *       "currencies": {
                     *         "currency1": 120,
                     *         "currency2": 0,
                     *         "currency3": 0,
                     *         "currency4": 0,
                     *         "currency5": 0,
                     *         "currency6": 0
                     *       },
                     *       "scriptData": {
                     *         "level": 7
                     *       },
                     *       "privateData": {},
                     *       "externalIds": {
                     *         "FB": "1000123"
                     *       },
                     *       "sessionsResetAt": null
                     *     }
                     */
                    "application/json": {
                        id: string;
                        userName: string | null;
                        displayName: string | null;
                        created: string | null;
                        lastSeen: string | null;
                        banned: boolean;
                        ban: {
                            at: string | null;
                            by: string | null;
                            reason: string | null;
                        } | null;
                        currencies: {
                            [key: string]: unknown;
                        };
                        scriptData: {
                            [key: string]: unknown;
                        };
                        privateData: {
                            [key: string]: unknown;
                        };
                        externalIds: {
                            [key: string]: unknown;
                        };
                        sessionsResetAt: string | null;
                    };
                };
            };
        };
    };
    previewErasePlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "player": 1,
                     *       "leaderboardEntries": 2,
                     *       "leaderboardDocuments": 0,
                     *       "runningTotals": 1,
                     *       "dataItems": 1,
                     *       "devices": 0,
                     *       "loginFailures": 0
                     *     }
                     */
                    "application/json": {
                        player: number;
                        leaderboardEntries: number;
                        leaderboardDocuments: number;
                        runningTotals: number;
                        dataItems: number;
                        devices: number;
                        loginFailures: number;
                    };
                };
            };
        };
    };
    previewEditPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "displayName": "Ada L.",
                 *       "currencies": {
                 *         "currency1": 150
                 *       },
                 *       "scriptData": {
                 *         "level": 8
                 *       }
                 *     }
                 */
                "application/json": {
                    displayName?: string;
                    currencies?: {
                        currency1?: number;
                        currency2?: number;
                        currency3?: number;
                        currency4?: number;
                        currency5?: number;
                        currency6?: number;
                    };
                    scriptData?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6b03a1c2d4e5f60718293a4b",
                     *       "userName": "ada",
                     *       "displayName": "Ada",
                     *       "created": "2026-11-20T10:00:00.000Z",
                     *       "lastSeen": "2026-11-24T08:30:00.000Z",
                     *       "banned": false,
                     *       "ban": null,
                     *       "currencies": {
                     *         "currency1": 120,
                     *         "currency2": 0,
                     *         "currency3": 0,
                     *         "currency4": 0,
                     *         "currency5": 0,
                     *         "currency6": 0
                     *       },
                     *       "scriptData": {
                     *         "level": 7
                     *       },
                     *       "privateData": {},
                     *       "externalIds": {
                     *         "FB": "1000123"
                     *       },
                     *       "sessionsResetAt": null
                     *     }
                     */
                    "application/json": {
                        id: string;
                        userName: string | null;
                        displayName: string | null;
                        created: string | null;
                        lastSeen: string | null;
                        banned: boolean;
                        ban: {
                            at: string | null;
                            by: string | null;
                            reason: string | null;
                        } | null;
                        currencies: {
                            [key: string]: unknown;
                        };
                        scriptData: {
                            [key: string]: unknown;
                        };
                        privateData: {
                            [key: string]: unknown;
                        };
                        externalIds: {
                            [key: string]: unknown;
                        };
                        sessionsResetAt: string | null;
                    };
                };
            };
        };
    };
    previewBanPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reason": "cheating: impossible scores"
                 *     }
                 */
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6b03a1c2d4e5f60718293a4b",
                     *       "userName": "ada",
                     *       "displayName": "Ada",
                     *       "created": "2026-11-20T10:00:00.000Z",
                     *       "lastSeen": "2026-11-24T08:30:00.000Z",
                     *       "banned": false,
                     *       "ban": null,
                     *       "currencies": {
                     *         "currency1": 120,
                     *         "currency2": 0,
                     *         "currency3": 0,
                     *         "currency4": 0,
                     *         "currency5": 0,
                     *         "currency6": 0
                     *       },
                     *       "scriptData": {
                     *         "level": 7
                     *       },
                     *       "privateData": {},
                     *       "externalIds": {
                     *         "FB": "1000123"
                     *       },
                     *       "sessionsResetAt": null
                     *     }
                     */
                    "application/json": {
                        id: string;
                        userName: string | null;
                        displayName: string | null;
                        created: string | null;
                        lastSeen: string | null;
                        banned: boolean;
                        ban: {
                            at: string | null;
                            by: string | null;
                            reason: string | null;
                        } | null;
                        currencies: {
                            [key: string]: unknown;
                        };
                        scriptData: {
                            [key: string]: unknown;
                        };
                        privateData: {
                            [key: string]: unknown;
                        };
                        externalIds: {
                            [key: string]: unknown;
                        };
                        sessionsResetAt: string | null;
                    };
                };
            };
        };
    };
    previewUnbanPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "6b03a1c2d4e5f60718293a4b",
                     *       "userName": "ada",
                     *       "displayName": "Ada",
                     *       "created": "2026-11-20T10:00:00.000Z",
                     *       "lastSeen": "2026-11-24T08:30:00.000Z",
                     *       "banned": false,
                     *       "ban": null,
                     *       "currencies": {
                     *         "currency1": 120,
                     *         "currency2": 0,
                     *         "currency3": 0,
                     *         "currency4": 0,
                     *         "currency5": 0,
                     *         "currency6": 0
                     *       },
                     *       "scriptData": {
                     *         "level": 7
                     *       },
                     *       "privateData": {},
                     *       "externalIds": {
                     *         "FB": "1000123"
                     *       },
                     *       "sessionsResetAt": null
                     *     }
                     */
                    "application/json": {
                        id: string;
                        userName: string | null;
                        displayName: string | null;
                        created: string | null;
                        lastSeen: string | null;
                        banned: boolean;
                        ban: {
                            at: string | null;
                            by: string | null;
                            reason: string | null;
                        } | null;
                        currencies: {
                            [key: string]: unknown;
                        };
                        scriptData: {
                            [key: string]: unknown;
                        };
                        privateData: {
                            [key: string]: unknown;
                        };
                        externalIds: {
                            [key: string]: unknown;
                        };
                        sessionsResetAt: string | null;
                    };
                };
            };
        };
    };
    previewResetPlayerSessions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "storedSessions": 0,
                     *       "lockoutCleared": true
                     *     }
                     */
                    "application/json": {
                        storedSessions: number;
                        lockoutCleared: boolean;
                    };
                };
            };
        };
    };
    previewExportPlayer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "exportedAt": "2026-11-24T09:00:00.000Z",
                     *       "game": "abcdefghij0123456789",
                     *       "stage": "preview",
                     *       "playerId": "6b03a1c2d4e5f60718293a4b",
                     *       "player": {
                     *         "_id": {
                     *           "$oid": "6b03a1c2d4e5f60718293a4b"
                     *         },
                     *         "userName": "ada",
                     *         "displayName": "Ada",
                     *         "currency1": 120
                     *       },
                     *       "passwordSet": true,
                     *       "devices": [],
                     *       "loginFailures": null,
                     *       "runningTotals": [
                     *         {
                     *           "collection": "HS-runningTotal",
                     *           "document": {
                     *             "_id": "6b03a1c2d4e5f60718293a4b",
                     *             "userId": "6b03a1c2d4e5f60718293a4b",
                     *             "SCORE": 120
                     *           }
                     *         }
                     *       ],
                     *       "leaderboardDocuments": [],
                     *       "leaderboardEntries": [
                     *         {
                     *           "leaderboard": "HSLB",
                     *           "partition": "",
                     *           "periodStart": "1970-01-01T00:00:00.000Z",
                     *           "values": [
                     *             120,
                     *             1
                     *           ],
                     *           "when": "2026-11-24T08:31:00.000Z",
                     *           "userName": "Ada"
                     *         }
                     *       ],
                     *       "dataItems": []
                     *     }
                     */
                    "application/json": {
                        exportedAt: string;
                        game: string;
                        stage: string;
                        playerId: string;
                        /** @description the player document (extended JSON), password hash withheld */
                        player: unknown;
                        passwordSet: boolean;
                        devices: string[];
                        loginFailures: {
                            failures: number;
                            lockedUntil: number;
                        } | null;
                        runningTotals: {
                            collection: string;
                            document: unknown;
                        }[];
                        leaderboardDocuments: {
                            collection: string;
                            document: unknown;
                        }[];
                        leaderboardEntries: unknown[];
                        dataItems: unknown[];
                    };
                };
            };
        };
    };
    previewListLeaderboards: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "shortCode": "HSLB",
                     *         "collection": "HSLB-leaderboard",
                     *         "resetFrequency": "WEEKLY",
                     *         "periodStart": "2026-11-23T00:00:00.000Z",
                     *         "nextReset": "2026-11-30T00:00:00.000Z",
                     *         "partitionAttributes": [
                     *           "COUNTRY"
                     *         ],
                     *         "fields": [
                     *           {
                     *             "attribute": "SCORE",
                     *             "sort": "DESC",
                     *             "ranks": true
                     *           }
                     *         ],
                     *         "boards": [
                     *           {
                     *             "shortCode": "HSLB",
                     *             "partition": "",
                     *             "partitionValues": {},
                     *             "entries": 2
                     *           },
                     *           {
                     *             "shortCode": "HSLB.COUNTRY.GB",
                     *             "partition": "COUNTRY.GB",
                     *             "partitionValues": {
                     *               "COUNTRY": "GB"
                     *             },
                     *             "entries": 1
                     *           }
                     *         ],
                     *         "morePartitions": false
                     *       }
                     *     ]
                     */
                    "application/json": {
                        shortCode: string;
                        collection: string;
                        resetFrequency: string;
                        periodStart: string | null;
                        nextReset: string | null;
                        partitionAttributes: string[];
                        fields: {
                            attribute: string;
                            sort: string;
                            ranks: boolean;
                        }[];
                        boards: {
                            shortCode: string;
                            partition: string;
                            partitionValues: {
                                [key: string]: unknown;
                            };
                            entries: number;
                        }[];
                        morePartitions: boolean;
                    }[];
                };
            };
        };
    };
    previewGetLeaderboard: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                /** @description LB, or LB.ATTR.VALUE for a partition */
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "shortCode": "HSLB",
                     *       "collection": "HSLB-leaderboard",
                     *       "resetFrequency": "WEEKLY",
                     *       "periodStart": "2026-11-23T00:00:00.000Z",
                     *       "nextReset": "2026-11-30T00:00:00.000Z",
                     *       "partitionAttributes": [
                     *         "COUNTRY"
                     *       ],
                     *       "fields": [
                     *         {
                     *           "attribute": "SCORE",
                     *           "sort": "DESC",
                     *           "ranks": true
                     *         }
                     *       ],
                     *       "boards": [
                     *         {
                     *           "shortCode": "HSLB",
                     *           "partition": "",
                     *           "partitionValues": {},
                     *           "entries": 2
                     *         },
                     *         {
                     *           "shortCode": "HSLB.COUNTRY.GB",
                     *           "partition": "COUNTRY.GB",
                     *           "partitionValues": {
                     *             "COUNTRY": "GB"
                     *           },
                     *           "entries": 1
                     *         }
                     *       ],
                     *       "morePartitions": false
                     *     }
                     */
                    "application/json": {
                        shortCode: string;
                        collection: string;
                        resetFrequency: string;
                        periodStart: string | null;
                        nextReset: string | null;
                        partitionAttributes: string[];
                        fields: {
                            attribute: string;
                            sort: string;
                            ranks: boolean;
                        }[];
                        boards: {
                            shortCode: string;
                            partition: string;
                            partitionValues: {
                                [key: string]: unknown;
                            };
                            entries: number;
                        }[];
                        morePartitions: boolean;
                    };
                };
            };
        };
    };
    previewLeaderboardTopEntries: {
        parameters: {
            query?: {
                offset?: number;
                /** @description default 50 */
                count?: number;
            };
            header?: never;
            path: {
                gameApiKey: string;
                /** @description LB, or LB.ATTR.VALUE for a partition */
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "leaderboardShortCode": "HSLB",
                     *       "entries": [
                     *         {
                     *           "userId": "6b03a1c2d4e5f60718293a4b",
                     *           "userName": "Ada",
                     *           "SCORE": 120,
                     *           "when": "2026-11-24T08:31:00.000Z",
                     *           "rank": 1
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        leaderboardShortCode: string;
                        entries: {
                            [key: string]: unknown;
                        }[];
                        playerId?: string;
                    };
                };
            };
        };
    };
    previewLeaderboardEntriesAround: {
        parameters: {
            query?: {
                /** @description default 10 */
                count?: number;
            };
            header?: never;
            path: {
                gameApiKey: string;
                /** @description LB, or LB.ATTR.VALUE for a partition */
                shortCode: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "leaderboardShortCode": "HSLB",
                     *       "entries": [
                     *         {
                     *           "userId": "6b03a1c2d4e5f60718293a4b",
                     *           "userName": "Ada",
                     *           "SCORE": 120,
                     *           "when": "2026-11-24T08:31:00.000Z",
                     *           "rank": 1
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        leaderboardShortCode: string;
                        entries: {
                            [key: string]: unknown;
                        }[];
                        playerId?: string;
                    };
                };
            };
        };
    };
    previewDeleteLeaderboardEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                /** @description LB, or LB.ATTR.VALUE for a partition */
                shortCode: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "leaderboardShortCode": "HSLB",
                     *       "playerId": "6b03a1c2d4e5f60718293a4b",
                     *       "deleted": 1
                     *     }
                     */
                    "application/json": {
                        leaderboardShortCode: string;
                        playerId: string;
                        deleted: number;
                    };
                };
            };
        };
    };
    previewResetLeaderboard: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                gameApiKey: string;
                /** @description LB, or LB.ATTR.VALUE for a partition */
                shortCode: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "leaderboardShortCode": "HSLB",
                     *       "boards": 3,
                     *       "entries": 240
                     *     }
                     */
                    "application/json": {
                        leaderboardShortCode: string;
                        boards: number;
                        entries: number;
                    };
                };
            };
        };
    };
    liveRegistrationRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".RegistrationRequest",
                 *       "userName": "ada",
                 *       "password": "correct horse",
                 *       "displayName": "Ada",
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".RegistrationRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    userName: string;
                    password: string;
                    /** @description defaults to the user name */
                    displayName?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".RegistrationResponse",
                     *       "authToken": "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b",
                     *       "displayName": "Ada",
                     *       "newPlayer": true,
                     *       "userId": "6740a1b2c3d4e5f601234567",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".RegistrationResponse";
                        /** @description a fresh UUID; authorizes nothing (the API acts by playerId) */
                        authToken?: string;
                        displayName?: string | null;
                        newPlayer?: boolean;
                        userId?: string;
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    liveAuthenticationRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".AuthenticationRequest",
                 *       "userName": "ada",
                 *       "password": "correct horse",
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".AuthenticationRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    userName: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".AuthenticationResponse",
                     *       "authToken": "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b",
                     *       "displayName": "Ada",
                     *       "newPlayer": false,
                     *       "userId": "6740a1b2c3d4e5f601234567",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".AuthenticationResponse";
                        /** @description a fresh UUID; authorizes nothing (the API acts by playerId) */
                        authToken?: string;
                        displayName?: string | null;
                        newPlayer?: boolean;
                        userId?: string;
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    liveDeviceAuthenticationRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".DeviceAuthenticationRequest",
                 *       "deviceId": "a1b2c3d4-device",
                 *       "deviceOS": "ANDROID",
                 *       "displayName": "Ada",
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".DeviceAuthenticationRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    deviceId: string;
                    deviceOS: string;
                    displayName?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".AuthenticationResponse",
                     *       "authToken": "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b",
                     *       "displayName": "Ada",
                     *       "newPlayer": true,
                     *       "userId": "6740a1b2c3d4e5f601234567",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".AuthenticationResponse";
                        /** @description a fresh UUID; authorizes nothing (the API acts by playerId) */
                        authToken?: string;
                        displayName?: string | null;
                        newPlayer?: boolean;
                        userId?: string;
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    liveAccountDetailsRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".AccountDetailsRequest",
                 *       "playerId": "6740a1b2c3d4e5f601234567",
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".AccountDetailsRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    playerId: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".AccountDetailsResponse",
                     *       "achievements": [],
                     *       "currency1": 0,
                     *       "currency2": 0,
                     *       "currency3": 0,
                     *       "currency4": 0,
                     *       "currency5": 0,
                     *       "currency6": 0,
                     *       "displayName": "Ada",
                     *       "externalIds": {},
                     *       "userId": "6740a1b2c3d4e5f601234567",
                     *       "virtualGoods": {},
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".AccountDetailsResponse";
                        achievements?: unknown[];
                        /** @description a number (extended JSON) */
                        currency1?: unknown;
                        /** @description a number (extended JSON) */
                        currency2?: unknown;
                        /** @description a number (extended JSON) */
                        currency3?: unknown;
                        /** @description a number (extended JSON) */
                        currency4?: unknown;
                        /** @description a number (extended JSON) */
                        currency5?: unknown;
                        /** @description a number (extended JSON) */
                        currency6?: unknown;
                        displayName?: string | null;
                        externalIds?: {
                            [key: string]: unknown;
                        };
                        userId?: string;
                        virtualGoods?: {
                            [key: string]: unknown;
                        };
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    liveLogEventRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".LogEventRequest",
                 *       "playerId": "6740a1b2c3d4e5f601234567",
                 *       "eventKey": "winRace",
                 *       "SCORE": 1200,
                 *       "TRACK": "moon",
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".LogEventRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    playerId: string;
                    /** @description the event's short code */
                    eventKey: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".LogEventResponse",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".LogEventResponse";
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    liveLeaderboardDataRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".LeaderboardDataRequest",
                 *       "leaderboardShortCode": "topScores",
                 *       "entryCount": 10,
                 *       "offset": 0,
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".LeaderboardDataRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    /** @description LB, or LB.ATTR.VALUE for a partition */
                    leaderboardShortCode: string;
                    /** @description entries to answer (default 50) */
                    entryCount?: number;
                    /** @description also answer the first n entries in `first` */
                    includeFirst?: number;
                    /** @description also answer the last n entries in `last` */
                    includeLast?: number;
                    /** @description 0-based */
                    offset?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".LeaderboardDataResponse",
                     *       "data": [
                     *         {
                     *           "userId": "6740a1b2c3d4e5f601234567",
                     *           "userName": "Ada",
                     *           "SCORE": 1200,
                     *           "when": "2026-11-22T12:00:00.000Z",
                     *           "rank": 1
                     *         }
                     *       ],
                     *       "leaderboardShortCode": "topScores",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".LeaderboardDataResponse";
                        data?: {
                            [key: string]: unknown;
                        }[];
                        first?: {
                            [key: string]: unknown;
                        }[];
                        last?: {
                            [key: string]: unknown;
                        }[];
                        leaderboardShortCode?: string;
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    liveAroundMeLeaderboardRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".AroundMeLeaderboardRequest",
                 *       "playerId": "6740a1b2c3d4e5f601234567",
                 *       "leaderboardShortCode": "topScores",
                 *       "entryCount": 2,
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".AroundMeLeaderboardRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    playerId: string;
                    /** @description LB, or LB.ATTR.VALUE for a partition */
                    leaderboardShortCode: string;
                    /** @description entries to answer (default 50) */
                    entryCount?: number;
                    /** @description also answer the first n entries in `first` */
                    includeFirst?: number;
                    /** @description also answer the last n entries in `last` */
                    includeLast?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".AroundMeLeaderboardResponse",
                     *       "data": [
                     *         {
                     *           "userId": "6740a1b2c3d4e5f601234567",
                     *           "userName": "Ada",
                     *           "SCORE": 1200,
                     *           "when": "2026-11-22T12:00:00.000Z",
                     *           "rank": 1
                     *         }
                     *       ],
                     *       "leaderboardShortCode": "topScores",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".AroundMeLeaderboardResponse";
                        data?: {
                            [key: string]: unknown;
                        }[];
                        first?: {
                            [key: string]: unknown;
                        }[];
                        last?: {
                            [key: string]: unknown;
                        }[];
                        leaderboardShortCode?: string;
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    liveCallbackGet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The script's scriptData as JSON; text/plain when the script set RESPONSE_RAW (its value is the answer). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    liveCallbackPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        /** @description Form fields (application/x-www-form-urlencoded, or the text fields of multipart/form-data) join the query fields in Spark.getData(); any other body is Spark.getData().REQUEST_BODY, as text. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "order": "o-17",
                 *       "amount": "250"
                 *     }
                 */
                "application/json": {
                    [key: string]: string | string[];
                };
            };
        };
        responses: {
            /** @description The script's scriptData as JSON; text/plain when the script set RESPONSE_RAW (its value is the answer). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    liveCallbackAsPlayerGet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                credential: string;
                secret: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The script's scriptData as JSON; text/plain when the script set RESPONSE_RAW (its value is the answer). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    liveCallbackAsPlayerPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                credential: string;
                secret: string;
                playerId: string;
            };
            cookie?: never;
        };
        /** @description Form fields (application/x-www-form-urlencoded, or the text fields of multipart/form-data) join the query fields in Spark.getData(); any other body is Spark.getData().REQUEST_BODY, as text. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "order": "o-17",
                 *       "amount": "250"
                 *     }
                 */
                "application/json": {
                    [key: string]: string | string[];
                };
            };
        };
        responses: {
            /** @description The script's scriptData as JSON; text/plain when the script set RESPONSE_RAW (its value is the answer). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    previewRegistrationRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".RegistrationRequest",
                 *       "userName": "ada",
                 *       "password": "correct horse",
                 *       "displayName": "Ada",
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".RegistrationRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    userName: string;
                    password: string;
                    /** @description defaults to the user name */
                    displayName?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".RegistrationResponse",
                     *       "authToken": "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b",
                     *       "displayName": "Ada",
                     *       "newPlayer": true,
                     *       "userId": "6740a1b2c3d4e5f601234567",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".RegistrationResponse";
                        /** @description a fresh UUID; authorizes nothing (the API acts by playerId) */
                        authToken?: string;
                        displayName?: string | null;
                        newPlayer?: boolean;
                        userId?: string;
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    previewAuthenticationRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".AuthenticationRequest",
                 *       "userName": "ada",
                 *       "password": "correct horse",
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".AuthenticationRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    userName: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".AuthenticationResponse",
                     *       "authToken": "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b",
                     *       "displayName": "Ada",
                     *       "newPlayer": false,
                     *       "userId": "6740a1b2c3d4e5f601234567",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".AuthenticationResponse";
                        /** @description a fresh UUID; authorizes nothing (the API acts by playerId) */
                        authToken?: string;
                        displayName?: string | null;
                        newPlayer?: boolean;
                        userId?: string;
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    previewDeviceAuthenticationRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".DeviceAuthenticationRequest",
                 *       "deviceId": "a1b2c3d4-device",
                 *       "deviceOS": "ANDROID",
                 *       "displayName": "Ada",
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".DeviceAuthenticationRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    deviceId: string;
                    deviceOS: string;
                    displayName?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".AuthenticationResponse",
                     *       "authToken": "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b",
                     *       "displayName": "Ada",
                     *       "newPlayer": true,
                     *       "userId": "6740a1b2c3d4e5f601234567",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".AuthenticationResponse";
                        /** @description a fresh UUID; authorizes nothing (the API acts by playerId) */
                        authToken?: string;
                        displayName?: string | null;
                        newPlayer?: boolean;
                        userId?: string;
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    previewAccountDetailsRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".AccountDetailsRequest",
                 *       "playerId": "6740a1b2c3d4e5f601234567",
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".AccountDetailsRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    playerId: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".AccountDetailsResponse",
                     *       "achievements": [],
                     *       "currency1": 0,
                     *       "currency2": 0,
                     *       "currency3": 0,
                     *       "currency4": 0,
                     *       "currency5": 0,
                     *       "currency6": 0,
                     *       "displayName": "Ada",
                     *       "externalIds": {},
                     *       "userId": "6740a1b2c3d4e5f601234567",
                     *       "virtualGoods": {},
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".AccountDetailsResponse";
                        achievements?: unknown[];
                        /** @description a number (extended JSON) */
                        currency1?: unknown;
                        /** @description a number (extended JSON) */
                        currency2?: unknown;
                        /** @description a number (extended JSON) */
                        currency3?: unknown;
                        /** @description a number (extended JSON) */
                        currency4?: unknown;
                        /** @description a number (extended JSON) */
                        currency5?: unknown;
                        /** @description a number (extended JSON) */
                        currency6?: unknown;
                        displayName?: string | null;
                        externalIds?: {
                            [key: string]: unknown;
                        };
                        userId?: string;
                        virtualGoods?: {
                            [key: string]: unknown;
                        };
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    previewLogEventRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".LogEventRequest",
                 *       "playerId": "6740a1b2c3d4e5f601234567",
                 *       "eventKey": "winRace",
                 *       "SCORE": 1200,
                 *       "TRACK": "moon",
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".LogEventRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    playerId: string;
                    /** @description the event's short code */
                    eventKey: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".LogEventResponse",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".LogEventResponse";
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    previewLeaderboardDataRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".LeaderboardDataRequest",
                 *       "leaderboardShortCode": "topScores",
                 *       "entryCount": 10,
                 *       "offset": 0,
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".LeaderboardDataRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    /** @description LB, or LB.ATTR.VALUE for a partition */
                    leaderboardShortCode: string;
                    /** @description entries to answer (default 50) */
                    entryCount?: number;
                    /** @description also answer the first n entries in `first` */
                    includeFirst?: number;
                    /** @description also answer the last n entries in `last` */
                    includeLast?: number;
                    /** @description 0-based */
                    offset?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".LeaderboardDataResponse",
                     *       "data": [
                     *         {
                     *           "userId": "6740a1b2c3d4e5f601234567",
                     *           "userName": "Ada",
                     *           "SCORE": 1200,
                     *           "when": "2026-11-22T12:00:00.000Z",
                     *           "rank": 1
                     *         }
                     *       ],
                     *       "leaderboardShortCode": "topScores",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".LeaderboardDataResponse";
                        data?: {
                            [key: string]: unknown;
                        }[];
                        first?: {
                            [key: string]: unknown;
                        }[];
                        last?: {
                            [key: string]: unknown;
                        }[];
                        leaderboardShortCode?: string;
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    previewAroundMeLeaderboardRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "@class": ".AroundMeLeaderboardRequest",
                 *       "playerId": "6740a1b2c3d4e5f601234567",
                 *       "leaderboardShortCode": "topScores",
                 *       "entryCount": 2,
                 *       "requestId": "r-17"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    "@class"?: ".AroundMeLeaderboardRequest";
                    /** @description echoed in the answer exactly as sent */
                    requestId?: string | number;
                    playerId: string;
                    /** @description LB, or LB.ATTR.VALUE for a partition */
                    leaderboardShortCode: string;
                    /** @description entries to answer (default 50) */
                    entryCount?: number;
                    /** @description also answer the first n entries in `first` */
                    includeFirst?: number;
                    /** @description also answer the last n entries in `last` */
                    includeLast?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "@class": ".AroundMeLeaderboardResponse",
                     *       "data": [
                     *         {
                     *           "userId": "6740a1b2c3d4e5f601234567",
                     *           "userName": "Ada",
                     *           "SCORE": 1200,
                     *           "when": "2026-11-22T12:00:00.000Z",
                     *           "rank": 1
                     *         }
                     *       ],
                     *       "leaderboardShortCode": "topScores",
                     *       "requestId": "r-17"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        "@class": ".AroundMeLeaderboardResponse";
                        data?: {
                            [key: string]: unknown;
                        }[];
                        first?: {
                            [key: string]: unknown;
                        }[];
                        last?: {
                            [key: string]: unknown;
                        }[];
                        leaderboardShortCode?: string;
                        /** @description request-level errors, HTTP 200: field → REQUIRED, INVALID, UNRECOGNISED, TAKEN, LOCKED */
                        error?: {
                            [key: string]: string;
                        };
                        /** @description echoed in the answer exactly as sent */
                        requestId?: string | number;
                    };
                };
            };
        };
    };
    previewCallbackGet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The script's scriptData as JSON; text/plain when the script set RESPONSE_RAW (its value is the answer). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    previewCallbackPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                credential: string;
                secret: string;
            };
            cookie?: never;
        };
        /** @description Form fields (application/x-www-form-urlencoded, or the text fields of multipart/form-data) join the query fields in Spark.getData(); any other body is Spark.getData().REQUEST_BODY, as text. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "order": "o-17",
                 *       "amount": "250"
                 *     }
                 */
                "application/json": {
                    [key: string]: string | string[];
                };
            };
        };
        responses: {
            /** @description The script's scriptData as JSON; text/plain when the script set RESPONSE_RAW (its value is the answer). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    previewCallbackAsPlayerGet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                credential: string;
                secret: string;
                playerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The script's scriptData as JSON; text/plain when the script set RESPONSE_RAW (its value is the answer). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    previewCallbackAsPlayerPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                apiKey: string;
                credential: string;
                secret: string;
                playerId: string;
            };
            cookie?: never;
        };
        /** @description Form fields (application/x-www-form-urlencoded, or the text fields of multipart/form-data) join the query fields in Spark.getData(); any other body is Spark.getData().REQUEST_BODY, as text. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "order": "o-17",
                 *       "amount": "250"
                 *     }
                 */
                "application/json": {
                    [key: string]: string | string[];
                };
            };
        };
        responses: {
            /** @description The script's scriptData as JSON; text/plain when the script set RESPONSE_RAW (its value is the answer). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
}
