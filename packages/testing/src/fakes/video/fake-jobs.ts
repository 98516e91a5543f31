/** Where a fake upstream job stands, from its age and what was done to it. */
export type FakeJobPhase = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** How the next submitted job(s) end instead of succeeding. */
export interface FakeJobFailure {
  /** The provider's own failure wording (and, per fake, its code). */
  readonly message: string;
  readonly code?: string;
  /** HTTP status the provider answers with for this failure, where it answers a failure with a status (fal's result). */
  readonly status?: number;
}

export interface FakeJob {
  readonly id: string;
  readonly model: string;
  readonly input: unknown;
  readonly createdAt: number;
  readonly durationMs: number;
  readonly webhookUrl: string | null;
  readonly failure: FakeJobFailure | null;
  /** Extra data a fake keeps per job (e.g. the endpoint path it was submitted to). */
  readonly meta: Readonly<Record<string, string>>;
  cancelledAt: number | null;
}

/** A webhook a fake delivered, and what the receiver answered. */
export interface FakeWebhookDelivery {
  readonly jobId: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly status: number | null;
  readonly error: string | null;
}

export interface FakeJobBookOptions {
  /** How long a job takes from submission to its end (default 200 ms; the scale test uses 60 s). */
  readonly durationMs?: number;
  /** Share of the duration spent queued before running (default 0.2). */
  readonly queuedFraction?: number;
}

/**
 * The jobs of a fake long-running upstream: ids, phases that progress with time, cancellation, injected
 * failures, and completion webhooks delivered when a job ends (through `deliver`, which each fake signs as
 * its provider does). Timers are unref'd and cleared on close.
 */
export class FakeJobBook {
  durationMs: number;
  queuedFraction: number;
  readonly jobs = new Map<string, FakeJob>();
  readonly deliveries: FakeWebhookDelivery[] = [];
  private submissionCount = 0;
  private cancelRequestCount = 0;
  private readonly failures: FakeJobFailure[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private holding = false;
  /** Jobs kept running by hold() until release(). */
  private readonly held = new Set<FakeJob>();
  /** Held jobs whose webhook fell due while held: sent on release(). */
  private readonly webhooksDue = new Set<FakeJob>();
  /** Set by keepWebhooks(): no webhook is sent on its own. */
  private keepingWebhooks = false;

  constructor(
    private readonly deliver: (job: FakeJob) => Promise<Omit<FakeWebhookDelivery, 'status' | 'error'> | null>,
    options: FakeJobBookOptions = {},
  ) {
    this.durationMs = options.durationMs ?? 200;
    this.queuedFraction = options.queuedFraction ?? 0.2;
  }

  /** Jobs accepted since start (or the last reset): one per task, restarts included, is the contract. */
  get submissions(): number {
    return this.submissionCount;
  }

  /**
   * Cancel requests received since start (for a live job or an ended one; reset() does not clear it): the
   * adapter conformance suite's `cancelsSeen` hook, e.g. `cancelsSeen: () => fake.jobs.cancelRequests`.
   */
  get cancelRequests(): number {
    return this.cancelRequestCount;
  }

  /** The next `times` submitted jobs end in this failure. */
  failNextJobs(failure: FakeJobFailure, times = 1): void {
    for (let i = 0; i < times; i++) this.failures.push(failure);
  }

  /**
   * From now on, submitted jobs do not end on their own: they stay queued then running (as their age says)
   * until release(), so a test can see a task in `generating` for as long as it needs, without timing.
   */
  hold(): void {
    this.holding = true;
  }

  /** Jobs held right now (submitted since hold() and not yet released). */
  get heldJobs(): number {
    return this.held.size;
  }

  /** Lets every held job end as its age says (at once when its duration has passed) and stops holding new ones. */
  release(): void {
    this.holding = false;
    this.held.clear();
    const due = [...this.webhooksDue];
    this.webhooksDue.clear();
    for (const job of due) void this.sendWebhook(job);
  }

  /**
   * From now on no webhook is sent on its own: a test takes the signed message from webhookMessage() and
   * posts it itself, when and as often as it needs (a provider retrying, a delivery racing a status check).
   */
  keepWebhooks(): void {
    this.keepingWebhooks = true;
  }

  /** The signed completion webhook this fake sends for a job, as it would send it (null when the job asked for none). */
  async webhookMessage(job: FakeJob): Promise<Omit<FakeWebhookDelivery, 'status' | 'error'> | null> {
    return job.webhookUrl === null ? null : this.deliver(job);
  }

  submit(input: { id?: string; model: string; input: unknown; webhookUrl: string | null; durationMs?: number; meta?: Record<string, string> }): FakeJob {
    this.submissionCount += 1;
    const job: FakeJob = {
      id: input.id ?? crypto.randomUUID(),
      model: input.model,
      input: input.input,
      createdAt: Date.now(),
      durationMs: input.durationMs ?? this.durationMs,
      webhookUrl: input.webhookUrl,
      failure: this.failures.shift() ?? null,
      meta: input.meta ?? {},
      cancelledAt: null,
    };
    this.jobs.set(job.id, job);
    if (this.holding) this.held.add(job);
    if (job.webhookUrl) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        if (this.held.has(job)) this.webhooksDue.add(job);
        else void this.sendWebhook(job);
      }, job.durationMs);
      t.unref();
      this.timers.add(t);
    }
    return job;
  }

  phase(job: FakeJob, now = Date.now()): FakeJobPhase {
    if (job.cancelledAt !== null) return 'cancelled';
    const age = now - job.createdAt;
    if (this.held.has(job)) return age < job.durationMs * this.queuedFraction ? 'queued' : 'running';
    if (age >= job.durationMs) return job.failure ? 'failed' : 'succeeded';
    return age < job.durationMs * this.queuedFraction ? 'queued' : 'running';
  }

  /** Fraction of the running part done, 0..1. */
  progress(job: FakeJob, now = Date.now()): number {
    const start = job.createdAt + job.durationMs * this.queuedFraction;
    const span = Math.max(1, job.durationMs * (1 - this.queuedFraction));
    return Math.min(this.held.has(job) ? 0.99 : 1, Math.max(0, (now - start) / span));
  }

  /** Cancels a job that has not ended; false when it already had. */
  cancel(job: FakeJob): boolean {
    this.cancelRequestCount += 1;
    const p = this.phase(job);
    if (p === 'succeeded' || p === 'failed' || p === 'cancelled') return false;
    job.cancelledAt = Date.now();
    return true;
  }

  /** Waits until `count` webhooks were delivered (or throws after timeoutMs). */
  async waitForDeliveries(count: number, timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.deliveries.length < count) {
      if (Date.now() > until) throw new Error(`fake upstream: ${this.deliveries.length} webhooks delivered, expected ${count}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  reset(): void {
    this.submissionCount = 0;
    this.failures.length = 0;
    this.deliveries.length = 0;
  }

  close(): void {
    this.held.clear();
    this.webhooksDue.clear();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private async sendWebhook(job: FakeJob): Promise<void> {
    if (job.cancelledAt !== null || this.keepingWebhooks) return;
    const message = await this.deliver(job);
    if (!message) return;
    try {
      const res = await fetch(message.url, { method: 'POST', headers: message.headers, body: message.body });
      await res.arrayBuffer();
      this.deliveries.push({ ...message, status: res.status, error: null });
    } catch (err) {
      this.deliveries.push({ ...message, status: null, error: (err as Error).message });
    }
  }
}

/** The file id part of a fake's result URL (`/files/<id>.<ext>`). */
export const FAKE_FILE_PATH = /^\/files\/([A-Za-z0-9-]+)\.(mp4|png)$/;
