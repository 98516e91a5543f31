/**
 * Collects the calls made during one turn of the event loop and hands them to `run` together, once the
 * turn's I/O callbacks have run (`setImmediate`): requests that arrive together (on different
 * connections, in the same wake-up) share one database round trip. A call waits no timer: a lone call is
 * run at the end of the turn it was made in. At most `max` calls go to one `run`; more make several.
 * With `keyOf`, only calls of the same key share a run (in arrival order; the keys' runs start in the
 * order of their first call, and each run's callers are answered as soon as that run is).
 */
export class TurnBatch<In, Out> {
  private pending: { input: In; resolve: (out: Out) => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false;

  constructor(
    /** Answers every input, in order: one answer per input (any other count rejects the whole batch). */
    private readonly run: (inputs: readonly In[]) => Promise<readonly Out[]>,
    private readonly max = 64,
    private readonly keyOf?: (input: In) => unknown,
  ) {}

  call(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const all = this.pending;
    this.pending = [];
    const keyOf = this.keyOf;
    if (keyOf === undefined || all.length === 1) {
      this.runAll(all);
      return;
    }
    const groups = new Map<unknown, typeof all>();
    for (const c of all) {
      const key = keyOf(c.input);
      const group = groups.get(key);
      if (group) group.push(c);
      else groups.set(key, [c]);
    }
    for (const group of groups.values()) this.runAll(group);
  };

  private runAll(calls: typeof this.pending): void {
    for (let i = 0; i < calls.length; i += this.max) {
      const batch = calls.slice(i, i + this.max);
      this.run(batch.map((c) => c.input)).then(
        (outs) => {
          if (outs.length !== batch.length) {
            const err = new Error(`a batch of ${batch.length} calls was answered with ${outs.length} results`);
            for (const c of batch) c.reject(err);
          } else batch.forEach((c, j) => c.resolve(outs[j] as Out));
        },
        (err: unknown) => batch.forEach((c) => c.reject(err)),
      );
    }
  }
}
