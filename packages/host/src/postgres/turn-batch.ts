/** How a TurnBatch groups its calls. */
export interface TurnBatchOptions<In> {
  /** At most this many calls go to one `run`; more make several (default 64). */
  readonly max?: number;
  /** Only calls of the same key share a run (default: all calls share one key). */
  readonly keyOf?: (input: In) => unknown;
  /**
   * At most this many runs of one key at a time (default: no limit). The calls made while a key has this
   * many runs in flight wait, and go together in the next run as soon as one of them answers (group commit:
   * what arrives while the database works on a batch makes the next batch, in arrival order).
   */
  readonly inFlightPerKey?: number;
}

type Call<In, Out> = { input: In; resolve: (out: Out) => void; reject: (err: unknown) => void };

/**
 * Collects the calls made during one turn of the event loop and hands them to `run` together, once the
 * turn's I/O callbacks have run (`setImmediate`): requests that arrive together (on different
 * connections, in the same wake-up) share one database round trip. A call waits no timer: a lone call is
 * run at the end of the turn it was made in (unless its key already has `inFlightPerKey` runs in flight).
 * Each run's callers are answered as soon as that run is; the runs of one key start in arrival order.
 */
export class TurnBatch<In, Out> {
  private readonly keys = new Map<unknown, { pending: Call<In, Out>[]; inFlight: number }>();
  private scheduled = false;
  private readonly max: number;
  private readonly keyOf: (input: In) => unknown;
  private readonly inFlightPerKey: number;

  constructor(
    /** Answers every input, in order: one answer per input (any other count rejects the whole batch). */
    private readonly run: (inputs: readonly In[]) => Promise<readonly Out[]>,
    options: TurnBatchOptions<In> = {},
  ) {
    this.max = options.max ?? 64;
    this.keyOf = options.keyOf ?? (() => undefined);
    this.inFlightPerKey = options.inFlightPerKey ?? Infinity;
  }

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      const key = this.keyOf(input);
      let state = this.keys.get(key);
      if (!state) this.keys.set(key, (state = { pending: [], inFlight: 0 }));
      state.pending.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    for (const key of [...this.keys.keys()]) this.start(key);
  };

  /** Starts runs of `key`'s waiting calls while it has fewer than `inFlightPerKey` in flight. */
  private start(key: unknown): void {
    const state = this.keys.get(key);
    if (!state) return;
    while (state.pending.length > 0 && state.inFlight < this.inFlightPerKey) {
      const batch = state.pending.splice(0, this.max);
      state.inFlight++;
      const settled = () => {
        state.inFlight--;
        if (state.pending.length > 0) this.start(key);
        else if (state.inFlight === 0) this.keys.delete(key);
      };
      this.run(batch.map((c) => c.input)).then(
        (outs) => {
          settled();
          if (outs.length !== batch.length) {
            const err = new Error(`a batch of ${batch.length} calls was answered with ${outs.length} results`);
            for (const c of batch) c.reject(err);
          } else batch.forEach((c, j) => c.resolve(outs[j] as Out));
        },
        (err: unknown) => {
          settled();
          for (const c of batch) c.reject(err);
        },
      );
    }
    if (state.pending.length === 0 && state.inFlight === 0) this.keys.delete(key);
  }
}
