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
  /** Sends as the player given, without request/response Cloud Code. */
  SendAs(playerId: string): SparkJson;
  /**
   * Sends as the current player and runs the request's (and event's) and response's Cloud Code, nested in this
   * execution (its time budget); answers the response JSON, with the nested scripts' scriptData or error.
   */
  Execute(): SparkJson;
  /** Execute as the player given. */
  ExecuteAs(playerId: string): SparkJson;
}

interface SparkRequestConstructor {
  new (): SparkRequest;
}

/** `new SparkRequests.LogEventRequest()` and every other request class of the runtime API Playbase serves. */
interface SparkRequestsNamespace {
  readonly RegistrationRequest: SparkRequestConstructor;
  readonly AuthenticationRequest: SparkRequestConstructor;
  readonly DeviceAuthenticationRequest: SparkRequestConstructor;
  readonly AccountDetailsRequest: SparkRequestConstructor;
  readonly LogEventRequest: SparkRequestConstructor;
  readonly LeaderboardDataRequest: SparkRequestConstructor;
  readonly AroundMeLeaderboardRequest: SparkRequestConstructor;
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

declare const Spark: Spark;
declare const SparkRequests: SparkRequestsNamespace;
/** Runs the module `modules/<shortCode>` in this script's global scope (inlined, not CommonJS). */
declare function require(shortCode: string): void;
/** As require, but skips a module already loaded in this execution. */
declare function requireOnce(shortCode: string): void;
