// The screen library: three screens with their snippets, in the original's export format, installed into a game
// as ordinary (editable) screens and snippets. Their scripts use the Cloud Code API of docs/cloud-code.md.
export interface LibraryEntry {
  title: string;
  description: string;
  bundle: Record<string, unknown>;
}

const PLAYER_SEARCH = `var d = Spark.getData().scriptData;
var q = {};
if (d.userName) q.userName = { $regex: "^" + d.userName.replace(/[.*+?^\${}()|[\\]\\\\]/g, "\\\\$&") };
if (d.playerId) q._id = { $oid: d.playerId };
var found = Spark.systemCollection("player").find(q, { userName: 1, displayName: 1 }).limit(20).toArray();
Spark.setScriptData("players", found.map(function (p) {
  return { id: p._id.$oid, userName: p.userName, displayName: p.displayName };
}));`;

const PLAYER_EDIT = `var d = Spark.getData().scriptData;
var p = Spark.loadPlayer(d.playerId);
if (!p) { Spark.setScriptData("missing", d.playerId); Spark.exit(); }
if (d.action === "credit" && Number(d.amount)) {
  var n = Number(d.amount);
  if (n > 0) p.credit1(n); else p.debit1(-n);
  Spark.getLog().info({ credited: n, playerId: d.playerId });
  Spark.setScriptData("done", "Balance 1 changed by " + n);
}
Spark.setScriptData("player", {
  id: p.getPlayerId(), userName: p.getUserName(), displayName: p.getDisplayName(),
  balance1: p.getBalance1(), balance2: p.getBalance2(), created: p.getCreationDate()
});`;

const LOG_QUERY = `var d = Spark.getData().scriptData;
var q = {};
if (d.level) q.level = d.level;
if (d.script) q.script = d.script;
if (d.playerId) q.playerId = d.playerId;
var rows = Spark.runtimeCollection("log").find(q).sort({ ts: -1 }).limit(Number(d.limit) || 50).toArray();
Spark.setScriptData("rows", rows.map(function (r) {
  return { ts: r.ts && r.ts.$date, level: r.level, script: r.script, playerId: r.playerId, log: r.log, stack: r.stack };
}));`;

const BOARD = `var d = Spark.getData().scriptData;
var lb = Spark.getLeaderboards().getLeaderboard(d.leaderboard);
if (!lb) { Spark.setScriptData("missing", d.leaderboard); Spark.exit(); }
if (d.action === "delete" && d.playerId) lb.deleteEntry(d.playerId, false);
var cursor = lb.getEntries(Number(d.count) || 20, Number(d.offset) || 0);
var rows = [];
while (cursor.hasNext()) {
  var e = cursor.next();
  rows.push({ rank: e.getRank(), userId: e.getUserId(), userName: e.getUserName() });
}
Spark.setScriptData("leaderboard", d.leaderboard);
Spark.setScriptData("rows", rows);`;

export const LIBRARY: LibraryEntry[] = [
  {
    title: 'Player Management',
    description: 'Find players by user name or id; see one; credit or debit currency 1.',
    bundle: {
      screens: {
        players: {
          name: 'Player Management',
          html: `<gs-row><gs-col width="5"><gs-title-block title="Find players">
<gs-form snippet="lib_player_search" target="player_results">
<label for="lib-user">User name starts with</label> <input id="lib-user" name="userName">
<label for="lib-pid">or player id</label> <input id="lib-pid" name="playerId">
<gs-submit>Search players</gs-submit></gs-form>
<gs-placeholder id="player_results"></gs-placeholder></gs-title-block></gs-col>
<gs-col width="7"><gs-title-block title="Player"><gs-placeholder id="player_detail"><p>Pick a player.</p></gs-placeholder></gs-title-block></gs-col></gs-row>`,
          allowedGroups: [],
        },
      },
      snippets: {
        lib_player_search: {
          name: 'Player search',
          script: PLAYER_SEARCH,
          template: `{{#if players}}<table><thead><tr><th scope="col">User name</th><th scope="col">Display name</th><th scope="col">Open</th></tr></thead><tbody>
{{#each players}}<tr><td>{{userName}}</td><td>{{displayName}}</td><td><gs-link snippet="lib_player_edit?playerId={{id}}" target="player_detail">Open {{userName}}</gs-link></td></tr>{{/each}}
</tbody></table>{{else}}<p>No player found.</p>{{/if}}`,
          allowedGroups: [],
        },
        lib_player_edit: {
          name: 'Player details',
          script: PLAYER_EDIT,
          template: `{{#if missing}}<gs-alert type="error" message="No player {{missing}}"></gs-alert>{{else}}
{{#if done}}<gs-alert type="success" message="{{done}}"></gs-alert>{{/if}}
<dl><dt>Id</dt><dd>{{player.id}}</dd><dt>User name</dt><dd>{{player.userName}}</dd><dt>Display name</dt><dd>{{player.displayName}}</dd><dt>Balance 1</dt><dd>{{player.balance1}}</dd><dt>Balance 2</dt><dd>{{player.balance2}}</dd></dl>
<gs-form snippet="lib_player_edit" target="player_detail"><input type="hidden" name="playerId" value="{{player.id}}"><input type="hidden" name="action" value="credit">
<label for="lib-amount">Credit currency 1 (negative debits)</label> <input id="lib-amount" name="amount" type="number">
<gs-submit>Apply</gs-submit></gs-form>{{/if}}`,
          allowedGroups: [],
        },
      },
      queries: {},
    },
  },
  {
    title: 'Leaderboard Management',
    description: "A leaderboard's entries by rank; delete a cheater's entry.",
    bundle: {
      screens: {
        leaderboards: {
          name: 'Leaderboard Management',
          html: `<gs-title-block title="Leaderboard"><gs-form snippet="lib_board" target="board_rows">
<label for="lib-lb">Leaderboard short code</label> <input id="lib-lb" name="leaderboard" required>
<label for="lib-offset">From rank (0-based)</label> <input id="lib-offset" name="offset" type="number" value="0">
<gs-submit>Show entries</gs-submit></gs-form><gs-placeholder id="board_rows"></gs-placeholder></gs-title-block>`,
          allowedGroups: [],
        },
      },
      snippets: {
        lib_board: {
          name: 'Leaderboard entries',
          script: BOARD,
          template: `{{#if missing}}<gs-alert type="error" message="No leaderboard {{missing}}"></gs-alert>{{else}}
<table><caption>{{leaderboard}}</caption><thead><tr><th scope="col">Rank</th><th scope="col">Player</th><th scope="col">Delete</th></tr></thead><tbody>
{{#each rows}}<tr><td>{{rank}}</td><td>{{userName}}</td><td><gs-link snippet="lib_board?action=delete&leaderboard={{../leaderboard}}&playerId={{userId}}" target="board_rows">Delete entry of {{userName}}</gs-link></td></tr>{{/each}}
</tbody></table>{{/if}}`,
          allowedGroups: [],
        },
      },
      queries: {},
    },
  },
  {
    title: 'Script Log Viewer',
    description: 'The script.log entries by level, script and player, newest first, with error stacks.',
    bundle: {
      screens: {
        scriptlog: {
          name: 'Script Log Viewer',
          html: `<gs-title-block title="Script log"><gs-form snippet="lib_log" target="log_rows">
<label for="lib-level">Level</label> <select id="lib-level" name="level"><option value="">any</option><option>DEBUG</option><option>INFO</option><option>WARN</option><option>ERROR</option></select>
<label for="lib-script">Script (folder/shortCode)</label> <input id="lib-script" name="script">
<label for="lib-player">Player id</label> <input id="lib-player" name="playerId">
<gs-submit>Show log</gs-submit></gs-form><gs-placeholder id="log_rows"></gs-placeholder></gs-title-block>`,
          allowedGroups: [],
        },
      },
      snippets: {
        lib_log: {
          name: 'Script log query',
          script: LOG_QUERY,
          template: `<table><thead><tr><th scope="col">Timestamp</th><th scope="col">Level</th><th scope="col">Script</th><th scope="col">Player ID</th><th scope="col">Log</th></tr></thead><tbody>
{{#each rows}}<tr><td>{{ts}}</td><td>{{level}}</td><td>{{script}}</td><td>{{playerId}}</td><td><code>{{json log}}</code>{{#if stack}}<details><summary>Stack</summary><pre>{{stack}}</pre></details>{{/if}}</td></tr>{{else}}<tr><td colspan="5">No entries.</td></tr>{{/each}}
</tbody></table>`,
          allowedGroups: [],
        },
      },
      queries: {},
    },
  },
];
