// The snapshot read lives in the store (src/store/snapshot-cursor.ts); this name stays for its existing importers.
export { readSnapshot, SNAPSHOT_BATCH } from '../store/snapshot-cursor.js';
