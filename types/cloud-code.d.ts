// The Spark API of Playbase Cloud Code, as typings for a studio's editor and for the console's completion.
// Global declarations (scripts are classic scripts, not modules). Use from a studio's project with
//   /// <reference types="playbase/cloud-code" />   (or "types": ["playbase/cloud-code"] in a jsconfig/tsconfig)
// It describes the whole API of the original platform that Playbase keeps (../shared/spec/cloud-code.md §3);
// docs/cloud-code.md says which calls the server answers today. Everything is synchronous. `getX()` is also
// readable as `.x` on the Spark objects (`Spark.data`, `Spark.player`).

/// <reference path="./spark-services.d.ts" />

/** A JSON value as scripts see it (documents come in extended JSON: `{"$oid": …}`, `{"$date": …}`). */
type SparkJson = any;
/** A MongoDB query, update, projection or sort document. */
type SparkQuery = Record<string, any>;

/** The global object of every script. */
interface Spark {
  /** The request, answer or message being scripted (a copy: changing it changes nothing). */
  getData(): SparkJson;
  readonly data: SparkJson;
  /** Adds `name: value` to the scriptData of what is being scripted (on a request it moves to the answer). */
  setScriptData(name: string, value: any): void;
  getScriptData(name: string): any;
  removeScriptData(name: string): void;
  removeAllScriptData(): void;
  /** Adds `key: value` to the answer's `error`; on a request or event script it rejects the request. */
  setScriptError(key: string, value: any): void;
  getScriptError(key: string): any;
  removeScriptError(key: string): void;
  removeAllScriptErrors(): void;
  hasScriptErrors(): boolean;
  /** Stops the script at once; what it set and wrote so far stays. */
  exit(): never;
  /** The player of the request, or null. */
  getPlayer(): SparkPlayer | null;
  readonly player: SparkPlayer | null;
  /** Any player of the stage, or null when there is none. */
  loadPlayer(playerId: string): SparkPlayer | null;
  /** A player by an external system's id: `FB`, `GC`, `GP`, `ST`, `XB`, … */
  loadPlayerByExternalId(system: string, externalId: string): SparkPlayer | null;
  getLog(): SparkLog;
  readonly log: SparkLog;
  /** The stage's collection `script.<name>`, read-write, created at its first write. */
  runtimeCollection(name: string): SparkMongoCollectionReadWrite;
  /** `meta.<name>`: read-only, versioned with snapshots. */
  metaCollection(name: string): SparkMongoCollectionReadOnly;
  /** `player`, `challengeInstance`, `externalAuthentication`: read-only. */
  systemCollection(name: string): SparkMongoCollectionReadOnly;
  /** Sends a request as the current player, skipping request and response Cloud Code; answers its response. */
  sendRequest(request: SparkRequest | SparkJson): SparkJson;
  sendRequestAs(request: SparkRequest | SparkJson, playerId: string): SparkJson;
  getGameDataService(): SparkGameDataService;
  readonly gameDataService: SparkGameDataService;
  getHttp(url: string, timeoutMillis?: number): SparkHttp;
  getScheduler(): SparkScheduler;
  getCache(): SparkCache;
  readonly cache: SparkCache;
  getConfig(): SparkConfig;
  readonly config: SparkConfig;
  getLeaderboards(): SparkLeaderboards;
  readonly leaderboards: SparkLeaderboards;
  getDigester(): SparkDigest;
  readonly digester: SparkDigest;
  /** Posts a LogEventRequest as the current player. */
  logEvent(eventKey: string, values: SparkJson): void;
  /** A re-entrant named lock of the game's stage; waits up to `tryMillis`; released when the execution ends. */
  lockKey(name: string, tryMillis: number): boolean;
  unlockKey(name: string): boolean;
  unlockKeyFully(name: string): boolean;
  /** What is left of the execution's time budget. */
  getRemainingMilliseconds(): number;
  readonly remainingMilliseconds: number;
}

interface SparkPlayer {
  getPlayerId(): string;
  getDisplayName(): string;
  getUserName(): string;
  /** `{FB: "…", GC: "…"}` */
  getExternalIds(): Record<string, string>;
  getCreationDate(): Date;
  /** Public data, in the player's scriptData (clients see it). */
  setScriptData(name: string, value: any): void;
  getScriptData(name: string): any;
  removeScriptData(name: string): void;
  /** Server-only data: never sent to clients. */
  setPrivateData(name: string, value: any): void;
  getPrivateData(name: string): any;
  removePrivateData(name: string): void;
  credit1(qty: number, reason?: string): void;
  credit2(qty: number, reason?: string): void;
  credit3(qty: number, reason?: string): void;
  credit4(qty: number, reason?: string): void;
  credit5(qty: number, reason?: string): void;
  credit6(qty: number, reason?: string): void;
  /** False, and no change, when the balance is short. */
  debit1(qty: number, reason?: string): boolean;
  debit2(qty: number, reason?: string): boolean;
  debit3(qty: number, reason?: string): boolean;
  debit4(qty: number, reason?: string): boolean;
  debit5(qty: number, reason?: string): boolean;
  debit6(qty: number, reason?: string): boolean;
  getBalance1(): number;
  getBalance2(): number;
  getBalance3(): number;
  getBalance4(): number;
  getBalance5(): number;
  getBalance6(): number;
  /** The balance of currency `n` (1 to 6). */
  getBalance(n: number): number;
  validatePassword(password: string): boolean;
  setPassword(password: string): void;
  /** Writes the player's changes now (into the execution's transaction). */
  persist(): void;
}

interface SparkMongoCollectionReadOnly {
  find(query?: SparkQuery, fields?: SparkQuery): SparkMongoCursor;
  /** The first match, or null. */
  findOne(query?: SparkQuery, fields?: SparkQuery, orderBy?: SparkQuery): SparkJson | null;
  count(query?: SparkQuery): number;
  distinct(key: string, query?: SparkQuery): any[];
  /** Answers `{result: [...]}`. */
  aggregate(firstStage: SparkQuery, moreStages?: SparkQuery[]): { result: SparkJson[] };
  ensureIndex(keys: SparkQuery, options?: SparkQuery): void;
  dropIndex(keys: SparkQuery): void;
  dropIndexByName(name: string): void;
  getIndexInfo(): SparkJson[];
  getLastError(): SparkJson;
}

interface SparkMongoCollectionReadWrite extends SparkMongoCollectionReadOnly {
  insert(docs: SparkJson | SparkJson[]): boolean;
  /** Upserts by `_id`. */
  save(doc: SparkJson): boolean;
  update(query: SparkQuery, update: SparkQuery, upsert?: boolean, multi?: boolean): boolean;
  updateMulti(query: SparkQuery, update: SparkQuery): boolean;
  remove(query: SparkQuery): boolean;
  drop(): void;
  findAndModify(query: SparkQuery, update: SparkQuery): SparkJson | null;
  findAndModify(query: SparkQuery, sort: SparkQuery, update: SparkQuery): SparkJson | null;
  findAndModify(
    query: SparkQuery,
    fields: SparkQuery,
    sort: SparkQuery,
    remove: boolean,
    update: SparkQuery,
    returnNew: boolean,
    upsert: boolean,
  ): SparkJson | null;
  findAndRemove(query: SparkQuery): SparkJson | null;
  applyChanges(existing: SparkJson, changed: SparkJson): boolean;
}

/** Runs at its first read with sort, then skip, then limit, whatever the order of the calls. */
interface SparkMongoCursor {
  limit(n: number): SparkMongoCursor;
  skip(n: number): SparkMongoCursor;
  sort(orderBy: SparkQuery): SparkMongoCursor;
  hasNext(): boolean;
  next(): SparkJson;
  curr(): SparkJson;
  toArray(): SparkJson[];
  /** The number of documents, with the limit. */
  size(): number;
  /** The number of documents, without the limit. */
  count(): number;
}

type SparkLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/** The script log (`script.log`): a message is a string or any JSON value. */
interface SparkLog {
  debug(message: any): void;
  info(message: any): void;
  warn(message: any): void;
  error(message: any): void;
  getLevel(): SparkLogLevel;
  setLevel(level: SparkLogLevel): void;
}

interface SparkHttp {
  setBasicAuth(username: string, password: string): SparkHttp;
  setHeaders(headers: Record<string, string>): SparkHttp;
  get(): SparkHttpResponse;
  postForm(form: Record<string, any>): SparkHttpResponse;
  postJson(body: SparkJson): SparkHttpResponse;
  postString(body: string): SparkHttpResponse;
  postXml(body: any): SparkHttpResponse;
  putForm(form: Record<string, any>): SparkHttpResponse;
  putJson(body: SparkJson): SparkHttpResponse;
  putString(body: string): SparkHttpResponse;
  putXml(body: any): SparkHttpResponse;
  delete(): SparkHttpResponse;
}

interface SparkHttpResponse {
  getResponseCode(): number;
  getResponseString(): string;
  getResponseJson(): SparkJson;
  getResponseXml(): any;
  getHeaders(): Record<string, string>;
  getCookies(): Record<string, string>;
}

interface SparkScheduler {
  /** Runs the module `moduleShortCode` in `delaySeconds` as this player with `data` as its getData(); a known `key` moves that schedule. */
  inSeconds(moduleShortCode: string, delaySeconds: number, data: SparkJson, key?: string): boolean;
  cancel(key: string): void;
}

interface SparkCache {
  put(key: string, value: any): void;
  /** The value, or null. */
  get(key: string): any;
  remove(key: string): void;
  removeAll(pattern?: string): void;
}

interface SparkConfig {
  /** `preview` or `live`. */
  getStage(): 'preview' | 'live';
  getApiKey(): string;
  /** The names of the game's scripts. */
  getScriptNames(): string[];
  getVirtualGoods(): SparkJson[];
  getAchievements(): SparkJson[];
  getSegments(): SparkJson[];
  getTeams(): SparkJson[];
  getChallenges(): SparkJson[];
  getDownloadables(): SparkJson[];
  getMatchConfigs(): SparkJson[];
  getCurrencies(): SparkJson[];
}

interface SparkLeaderboards {
  getLeaderboard(shortCode: string): SparkLeaderboard | null;
  listLeaderboards(): SparkLeaderboard[];
  getSocialLeaderboard(shortCode: string, friendIds: string[]): SparkLeaderboard;
  getSocialLeaderboardAs(shortCode: string, playerId: string, friendIds: string[]): SparkLeaderboard;
  getTeamLeaderboard(shortCode: string, teamIds: string[]): SparkLeaderboard;
  getChallengeLeaderboard(challengeInstanceId: string): SparkLeaderboard;
  getInverseSocialLeaderboard(shortCode: string, friendIds: string[]): SparkLeaderboard;
  union(a: SparkLeaderboard, b: SparkLeaderboard): SparkLeaderboard;
  intersection(a: SparkLeaderboard, b: SparkLeaderboard): SparkLeaderboard;
  difference(a: SparkLeaderboard, b: SparkLeaderboard): SparkLeaderboard;
}

interface SparkLeaderboard {
  getEntries(count?: number, offset?: number): SparkLeaderboardCursor;
  getEntriesFromPlayer(playerId: string, count: number): SparkLeaderboardCursor;
  getEntriesForIdentifier(id: string, customIdFilter?: SparkJson): SparkLeaderboardEntry[];
  getEntryCount(): number;
  getRankForScore(score: number): number;
  deleteEntry(id: string, deleteRunningTotals: boolean): boolean;
  deleteAllEntries(deleteRunningTotals?: boolean): boolean;
  drop(deleteRunningTotalData?: boolean): boolean;
  rebuildLeaderboard(awardAchievements: boolean): boolean;
  isPartitioned(): boolean;
  getPartitions(): SparkLeaderboard[];
  getIdFields(): string[];
  getScoreFields(): string[];
  getName(): string;
  getShortCode(): string;
}

interface SparkLeaderboardCursor {
  hasNext(): boolean;
  next(): SparkLeaderboardEntry;
  toArray(): SparkLeaderboardEntry[];
}

interface SparkLeaderboardEntry {
  getUserId(): string;
  getUserName(): string;
  getRank(): number;
  getRankPercentage(): number;
  getWhen(): string;
  getAttribute(name: string): any;
}
