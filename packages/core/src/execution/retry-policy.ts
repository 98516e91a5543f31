/** Backoff before attempt n+1 after n failed attempts: 2 s doubling to 60 s, with up to 20 % jitter; Retry-After wins when longer. */
export function retryDelayMs(failedAttempts: number, retryAfterMs: number | null, random: () => number = Math.random): number {
  const base = Math.min(60_000, 2_000 * 2 ** Math.max(0, failedAttempts - 1));
  const jittered = Math.round(base * (1 + 0.2 * random()));
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** Default status-check schedule for long-running jobs: 2 s, 2 s, 4 s, 6 s, then every 10 s. */
export function defaultPollDelayMs(checkNumber: number): number {
  return [2_000, 2_000, 4_000, 6_000][checkNumber - 1] ?? 10_000;
}
