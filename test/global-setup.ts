// Vitest global setup: prepares shared test resources once per run (see test/harness.ts).
export default async function setup(): Promise<void> {}
