import { WebhookUnverifiable } from '@gengate/core/adapter';

/** Fetch attempts of a provider's webhook secret or keys: at most one per this interval, whatever the traffic. */
export const WEBHOOK_KEYS_MIN_INTERVAL_MS = 60_000;

export interface WebhookKeysOptions<T> {
  /** What the keys are, for messages ("Replicate's webhook secret"). */
  readonly what: string;
  /** Fetches them (with its own timeout: the fetch is shared, so no single request's signal ends it). */
  readonly fetch: () => Promise<T>;
  /** How long fetched keys are used before they are fetched again; default forever. */
  readonly maxAgeMs?: number;
  readonly minIntervalMs?: number;
  readonly now?: () => number;
}

/**
 * A provider's webhook verification keys (Replicate's secret, fal's JWKS), fetched on first need and then
 * at most once per `minIntervalMs`, however many webhooks arrive: concurrent callers share one fetch, a
 * failed fetch is not retried before the interval is over (callers get WebhookUnverifiable with the
 * seconds left, or the previous keys when there are some), and `get({ refresh: true })` (after a signature
 * mismatch: rotated keys) refetches only when the interval allows. Anonymous traffic therefore costs
 * the provider at most one request per interval.
 */
export class WebhookKeys<T> {
  private value: T | null = null;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private running: Promise<T> | null = null;
  private readonly minIntervalMs: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(private readonly options: WebhookKeysOptions<T>) {
    this.minIntervalMs = options.minIntervalMs ?? WEBHOOK_KEYS_MIN_INTERVAL_MS;
    this.maxAgeMs = options.maxAgeMs ?? Number.POSITIVE_INFINITY;
    this.now = options.now ?? Date.now;
  }

  /** The keys: cached ones unless they are missing, stale or `refresh` is asked, and the interval allows a fetch. */
  get(opts: { readonly refresh?: boolean } = {}): Promise<T> {
    if (this.running) return this.running;
    const now = this.now();
    const wanted = this.value === null || opts.refresh === true || now - this.fetchedAt >= this.maxAgeMs;
    if (!wanted) return Promise.resolve(this.value as T);
    const waitMs = this.attemptedAt + this.minIntervalMs - now;
    if (waitMs > 0) return this.value !== null ? Promise.resolve(this.value) : Promise.reject(this.unavailable(waitMs));
    this.attemptedAt = now;
    const previous = this.value;
    this.running = this.options
      .fetch()
      .then(
        (v) => {
          this.value = v;
          this.fetchedAt = this.now();
          return v;
        },
        (err: unknown) => {
          if (previous !== null) return previous;
          throw this.unavailable(this.minIntervalMs, err);
        },
      )
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private unavailable(waitMs: number, cause?: unknown): WebhookUnverifiable {
    return new WebhookUnverifiable(`${this.options.what} could not be fetched; the next attempt is allowed in ${Math.ceil(waitMs / 1000)} s`, Math.max(1, Math.ceil(waitMs / 1000)), cause);
  }
}
