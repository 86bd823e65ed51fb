// Times /healthz every 50 ms while a slow request runs in the same test, asserting each answer is 200.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';

/** Calls /healthz every 50 ms until `until` settles; answers the longest wait and how many calls answered. */
export async function probeHealth(
  url: string,
  until: Promise<unknown>,
): Promise<{ longest: number; n: number }> {
  let settled = false;
  void until.finally(() => {
    settled = true;
  });
  let longest = 0;
  let n = 0;
  while (!settled) {
    const started = performance.now();
    const res = await fetch(`${url}/healthz`);
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    longest = Math.max(longest, performance.now() - started);
    n++;
    await sleep(50);
  }
  return { longest, n };
}
