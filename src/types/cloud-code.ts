// Names a Cloud Code script may take, shared by the script storage (src/config/scripts.ts) and the runtime that runs
// the scripts: the request classes of the runtime API and the response class each answers with, and the system
// scripts. A leaf: src/runtime/request-schemas.ts holds the requests themselves (a test checks the two agree).

/** Each runtime request class and the class of its answer (`request/<Request>.js`, `response/<Response>.js`). */
export const RESPONSE_CLASS_OF = {
  RegistrationRequest: 'RegistrationResponse',
  AuthenticationRequest: 'AuthenticationResponse',
  DeviceAuthenticationRequest: 'AuthenticationResponse',
  AccountDetailsRequest: 'AccountDetailsResponse',
  LogEventRequest: 'LogEventResponse',
  LeaderboardDataRequest: 'LeaderboardDataResponse',
  AroundMeLeaderboardRequest: 'AroundMeLeaderboardResponse',
} as const;

export type RuntimeRequestClass = keyof typeof RESPONSE_CLASS_OF;
export type RuntimeResponseClass = (typeof RESPONSE_CLASS_OF)[RuntimeRequestClass];

export const RUNTIME_REQUEST_CLASSES = Object.keys(RESPONSE_CLASS_OF) as RuntimeRequestClass[];
export const RUNTIME_RESPONSE_CLASSES = [
  ...new Set(Object.values(RESPONSE_CLASS_OF)),
] as RuntimeResponseClass[];

/** The system scripts of the original platform's export (`system/<code>.js`). */
export const SYSTEM_SCRIPTS = [
  'GS_MINUTE',
  'GS_HOURLY',
  'GS_DAILY',
  'GS_GAME_PUBLISH',
  'GS_PLAYER_CONNECT',
  'GS_PLAYER_DISCONNECT',
] as const;
