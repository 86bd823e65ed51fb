// Each runtime request's standard processing, with the @class of its answer: served by the runtime routes
// (routes.ts) and sent in-process by Cloud Code's Spark.sendRequest (src/script/host-requests.ts).
import { aroundMe, leaderboardData, logEvent } from './game-requests.js';
import { accountDetails, authentication, deviceAuthentication, registration } from './player-requests.js';
import type { RequestHandler } from './request-kit.js';

export const REQUEST_HANDLERS: Readonly<Record<string, { handler: RequestHandler; answer: string }>> = {
  RegistrationRequest: { handler: registration, answer: '.RegistrationResponse' },
  AuthenticationRequest: { handler: authentication, answer: '.AuthenticationResponse' },
  DeviceAuthenticationRequest: { handler: deviceAuthentication, answer: '.AuthenticationResponse' },
  AccountDetailsRequest: { handler: accountDetails, answer: '.AccountDetailsResponse' },
  LogEventRequest: { handler: logEvent, answer: '.LogEventResponse' },
  LeaderboardDataRequest: { handler: leaderboardData, answer: '.LeaderboardDataResponse' },
  AroundMeLeaderboardRequest: { handler: aroundMe, answer: '.AroundMeLeaderboardResponse' },
};
