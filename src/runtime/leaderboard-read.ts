// Ranked reads are the store's (src/store/leaderboard-reads.ts); this name stays for its existing importers.
export * from '../store/leaderboard-reads.js';
