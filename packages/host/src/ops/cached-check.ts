/**
 * A value read from the database at most once per `maxAgeMs`, whatever the request rate: callers get the
 * last value while it is fresh, and concurrent callers share one read when it is not. A failed read is
 * not cached (the next caller tries again) but is shared by the callers waiting on it.
 */
export class CachedCheck<T> {
  private value: { readonly at: number; readonly v: T } | null = null;
  private running: Promise<T> | null = null;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly maxAgeMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(): Promise<T> {
    const cached = this.value;
    if (cached && this.now() - cached.at < this.maxAgeMs) return Promise.resolve(cached.v);
    this.running ??= this.read()
      .then((v) => {
        this.value = { at: this.now(), v };
        return v;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}
