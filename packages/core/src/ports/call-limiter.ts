export type CallPermit =
  | { readonly acquired: true; release(): Promise<void> }
  | { readonly acquired: false; readonly retryAfterMs: number };

/**
 * Per-provider limits on upstream calls (concurrent calls and calls per minute), shared by every worker
 * process: a call that would exceed them waits in the queue instead of becoming an upstream 429.
 */
export interface ProviderCallLimiter {
  /** Takes a permit for one upstream call of this provider, or says how long to wait. */
  acquire(providerId: string, holderId: string): Promise<CallPermit>;
}

/** Limits of one provider; null = unlimited. */
export interface ProviderLimits {
  readonly maxConcurrent: number | null;
  readonly maxPerMinute: number | null;
}

export const UNLIMITED_CALLS: ProviderCallLimiter = {
  acquire: async () => ({ acquired: true, release: async () => undefined }),
};
