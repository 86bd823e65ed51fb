// Leaderboard reset periods, in UTC: a day starts at 00:00, a week on Monday 00:00, a month on the 1st 00:00.
import type { ResetFrequency } from './runtime-config.js';

const DAY_MS = 86_400_000;

/** The start (epoch ms) of the period that `nowMs` falls in; 0 for a leaderboard that never resets. */
export function periodStart(reset: ResetFrequency, nowMs: number): number {
  const day = Math.floor(nowMs / DAY_MS) * DAY_MS;
  switch (reset) {
    case 'DAILY':
      return day;
    case 'WEEKLY': {
      // getUTCDay: 0 is Sunday; days since Monday.
      const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
      return day - sinceMonday * DAY_MS;
    }
    case 'MONTHLY': {
      const d = new Date(nowMs);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    }
    default:
      return 0;
  }
}
