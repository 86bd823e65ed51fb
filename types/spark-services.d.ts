// The rest of the Spark API (types/cloud-code.d.ts references this file): the game data service, sending
// requests, digests, files, Redis, teams, messages, and the globals a script sees.

/** Game data service: typed items with declared indexed fields (the game's indexed types). */
interface SparkGameDataService {
  /** A string operand for conditions on an indexed field. */
  S(field: string): SparkDataStringField;
  /** A number operand for conditions on an indexed field. */
  N(field: string): SparkDataNumberField;
  sort(field: string, ascending: boolean): SparkDataSortOrder;
  /** A new item (persisting it overwrites an item of the same id). */
  createItem(type: string, id: string): SparkDataItem;
  getItem(type: string, id: string): SparkDataGetResult;
  /** Eventually consistent; only declared indexed fields may be queried. */
  queryItems(type: string, condition: SparkDataCondition, sortOrder?: SparkDataSortOrder): SparkDataQueryResult;
}

interface SparkDataCondition {
  and(condition: SparkDataCondition): SparkDataCondition;
  or(condition: SparkDataCondition): SparkDataCondition;
  negate(): SparkDataCondition;
}

interface SparkDataNumberField {
  eq(value: number): SparkDataCondition;
  ne(value: number): SparkDataCondition;
  gt(value: number): SparkDataCondition;
  lt(value: number): SparkDataCondition;
  between(low: number, high: number): SparkDataCondition;
  in(values: number[]): SparkDataCondition;
}

interface SparkDataStringField {
  eq(value: string): SparkDataCondition;
  ne(value: string): SparkDataCondition;
  gt(value: string): SparkDataCondition;
  lt(value: string): SparkDataCondition;
  between(low: string, high: string): SparkDataCondition;
  in(values: string[]): SparkDataCondition;
  startsWith(prefix: string): SparkDataCondition;
}

interface SparkDataSortOrder {
  add(field: string, ascending: boolean): SparkDataSortOrder;
}

interface SparkDataItem {
  getId(): string;
  getType(): string;
  getData(): SparkJson;
  setData(data: SparkJson): void;
  getTTL(): number;
  /** Expiry, in epoch milliseconds. */
  setTTL(epochMillis: number): void;
  delete(): SparkDataResult;
  getValidationErrors(): string[];
  persistor(): SparkDataItemPersistor;
}

/** Chain options, then persist(). By default only changed fields are written, with no version check. */
interface SparkDataItemPersistor {
  withAtomicIncrements(): SparkDataItemPersistor;
  withOverwrite(): SparkDataItemPersistor;
  withVersionCheck(): SparkDataItemPersistor;
  withConditionCheck(condition: SparkDataCondition): SparkDataItemPersistor;
  withErrorOnTypeConversion(): SparkDataItemPersistor;
  persist(): SparkDataResult;
}

interface SparkDataResult {
  /** The error, or null. */
  error(): string | null;
}

interface SparkDataGetResult extends SparkDataResult {
  /** The item, or null when there is none. */
  document(): SparkDataItem | null;
}

interface SparkDataQueryResult extends SparkDataResult {
  cursor(): SparkDataCursor;
}

interface SparkDataCursor {
  hasNext(): boolean;
  next(): SparkDataItem;
}

/** A request built in a script: set its fields as properties, then send it. */
interface SparkRequest {
  [field: string]: any;
  /** Sends as the current player, without request/response Cloud Code; answers the response JSON. */
  Send(): SparkJson;
  SendAs(playerId: string): SparkJson;
  /** Sends and runs the request's and response's Cloud Code. */
  Execute(): SparkJson;
  ExecuteAs(playerId: string): SparkJson;
}

interface SparkRequestConstructor {
  new (): SparkRequest;
}

/** `new SparkRequests.LogEventRequest()` and every other request class of the runtime API. */
interface SparkRequestsNamespace {
  RegistrationRequest: SparkRequestConstructor;
  AuthenticationRequest: SparkRequestConstructor;
  DeviceAuthenticationRequest: SparkRequestConstructor;
  AccountDetailsRequest: SparkRequestConstructor;
  LogEventRequest: SparkRequestConstructor;
  LogChallengeEventRequest: SparkRequestConstructor;
  LeaderboardDataRequest: SparkRequestConstructor;
  AroundMeLeaderboardRequest: SparkRequestConstructor;
  ChangeUserDetailsRequest: SparkRequestConstructor;
  CreateChallengeRequest: SparkRequestConstructor;
  ListVirtualGoodsRequest: SparkRequestConstructor;
  BuyVirtualGoodsRequest: SparkRequestConstructor;
  [requestClass: string]: SparkRequestConstructor;
}

/** Hex or Base64 digests and HMACs of UTF-8 strings. */
interface SparkDigest {
  md5Hex(value: string): string;
  md5Base64(value: string): string;
  sha1Hex(value: string): string;
  sha1Base64(value: string): string;
  sha256Hex(value: string): string;
  sha256Base64(value: string): string;
  sha512Hex(value: string): string;
  sha512Base64(value: string): string;
  hmacMd5Hex(key: string, value: string): string;
  hmacMd5Base64(key: string, value: string): string;
  hmacSha1Hex(key: string, value: string): string;
  hmacSha1Base64(key: string, value: string): string;
  hmacSha256Hex(key: string, value: string): string;
  hmacSha256Base64(key: string, value: string): string;
  hmacSha512Hex(key: string, value: string): string;
  hmacSha512Base64(key: string, value: string): string;
}

interface SparkFiles {
  uploadedJson(uploadId: string): SparkJson;
  uploadedXml(uploadId: string): any;
  downloadableJson(shortCode: string): SparkJson;
  downloadableXml(shortCode: string): any;
  deleteUploadedFile(uploadId: string): boolean;
}

/** Jedis-style commands; multi-value arguments are arrays, values are strings. */
interface SparkRedis {
  get(key: string): string | null;
  set(key: string, value: string, nxxx?: string, expx?: string, time?: number): string | null;
  setex(key: string, seconds: number, value: string): string;
  setnx(key: string, value: string): number;
  incr(key: string): number;
  incrBy(key: string, by: number): number;
  del(keys: string[]): number;
  exists(key: string): boolean;
  expire(key: string, seconds: number): number;
  ttl(key: string): number;
  keys(pattern: string): string[];
  hget(key: string, field: string): string | null;
  hset(key: string, field: string, value: string): number;
  hgetAll(key: string): Record<string, string>;
  hincrBy(key: string, field: string, by: number): number;
  hmset(key: string, values: Record<string, string>): string;
  lpush(key: string, values: string[]): number;
  rpush(key: string, values: string[]): number;
  lrange(key: string, start: number, stop: number): string[];
  ltrim(key: string, start: number, stop: number): string;
  sadd(key: string, members: string[]): number;
  smembers(key: string): string[];
  sismember(key: string, member: string): boolean;
  zadd(key: string, score: number, member: string): number;
  zincrby(key: string, by: number, member: string): number;
  zrange(key: string, start: number, stop: number): string[];
  zrevrange(key: string, start: number, stop: number): string[];
  zrangeByScore(key: string, min: number, max: number): string[];
  zrevrangeWithScores(key: string, start: number, stop: number): { element: string; score: number }[];
  zrank(key: string, member: string): number | null;
  zscore(key: string, member: string): number | null;
}

interface SparkTeams {
  getTeam(teamId: string): SparkTeam | null;
  getTeamByOwnerIdAndTeamType(ownerId: string, teamType: string): SparkTeam[];
}

interface SparkTeam {
  getTeamId(): string;
  getTeamName(): string;
  getTeamType(): string;
  getOwnerId(): string;
  getMemberIds(): string[];
  addMembers(playerIds: string[]): void;
  removeMembers(playerIds: string[]): void;
  setOwnerId(playerId: string): void;
  drop(): void;
}

interface SparkChallenge {
  getChallengeId(): string;
  getShortCode(): string;
  getChallengerId(): string;
  getChallengedPlayerIds(): string[];
  getAcceptedPlayerIds(): string[];
  getRunState(): string;
  setScriptData(name: string, value: any): void;
  getScriptData(name: string): any;
  removeScriptData(name: string): void;
  getPrivateData(name: string): any;
  setPrivateData(name: string, value: any): void;
}

/** Builds and sends a ScriptMessage. */
interface SparkMessage {
  setMessageData(data: SparkJson): SparkMessage;
  setPlayerIds(playerIds: string[]): SparkMessage;
  setSendAsPush(sendAsPush: boolean): SparkMessage;
  setSendViaSocket(sendViaSocket: boolean): SparkMessage;
  setSupressPushOnSocketSend(suppress: boolean): SparkMessage;
  setExpireAfterHours(hours: number): SparkMessage;
  setDeviceTypes(deviceTypes: string[]): SparkMessage;
  setIncludeInPushCount(include: boolean): SparkMessage;
  send(): void;
}

interface SparkProperties {
  getProperty(shortCode: string): SparkJson;
  getPropertySet(shortCode: string): SparkJson;
}

interface SparkMultiplayer {
  createMatch(playerIds: string[], matchShortCode: string): SparkJson;
  cancelMatchmaking(playerId: string, matchShortCode: string): void;
}

interface SparkScriptOptions {
  /** Whether database dates come back as JS Dates (true) or as longs. */
  setMaintainDbDates(maintain: boolean): void;
}

interface SendGrid {
  addTo(email: string, name?: string): SendGrid;
  setFrom(email: string, name?: string): SendGrid;
  setSubject(subject: string): SendGrid;
  setText(text: string): SendGrid;
  setHtml(html: string): SendGrid;
  send(): SparkJson;
}

declare const Spark: Spark;
declare const SparkRequests: SparkRequestsNamespace;
/** Runs the module `modules/<shortCode>` in this script's global scope (inlined, not CommonJS). */
declare function require(shortCode: string): void;
/** As require, but skips a module already loaded in this execution. */
declare function requireOnce(shortCode: string): void;
