import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { ModelRegistry } from '../catalog/model-registry.js';
import { isUpstreamError } from '../errors/upstream-error.js';
import { checkStep, firstStep, pollDelayMs, stepFromStatus, type StepResult } from '../execution/adapter-step.js';
import type { ExecuteTaskOptions } from '../execution/execution-options.js';
import { InflightCalls, TaskCancelled } from '../execution/inflight-calls.js';
import { retryDelayMs } from '../execution/retry-policy.js';
import { DeadlineExceeded, deadlineMessage, failureMessage } from '../execution/task-failure.js';
import { TaskResultWriter } from '../execution/task-result-writer.js';
import type { ModelDescriptor } from '../model/model.js';
import type { TaskRecord } from '../model/task.js';
import { PriceBook } from '../pricing/price-book.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { ProviderCallLimiter } from '../ports/call-limiter.js';
import type { AdapterCall, ProviderAdapter, StartedJob } from '../ports/provider-adapter.js';
import type { Clock, Logger } from '../ports/system.js';
import type { TaskStore, UnitOfWork } from '../ports/stores.js';
import type { TaskCompletion } from '../ports/task-completion.js';
import { NO_TELEMETRY, type Telemetry, type UpstreamOperation } from '../ports/telemetry.js';
import { ALWAYS_HEALTHY, type RouteHealth } from '../ports/route-health.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import { normalizeRunRequest } from '../run/normalize-request.js';
import type { JsonValue } from '../util/json.js';
import { FailTask } from './fail-task.js';

export { DEFAULT_DEADLINES_MS, type ExecuteTaskOptions } from '../execution/execution-options.js';

/**
 * What one job did: `waiting` = a long-running upstream job is under way (a status check is scheduled);
 * `deferred` = the provider's call limits were full, the step was rescheduled; `retrying` = a retryable
 * upstream failure, a new attempt is scheduled.
 */
const UNLIMITED_PERMIT = { acquired: true, release: async () => undefined } as const;

export type ExecuteOutcome = 'success' | 'fail' | 'skipped' | 'waiting' | 'deferred' | 'retrying';

interface Prepared {
  readonly task: TaskRecord;
  readonly model: ModelDescriptor;
  readonly request: NormalizedRequest;
  readonly adapter: ProviderAdapter;
  readonly log: Logger;
}

/**
 * Drives one task: waiting -> generating -> success | fail, one short job at a time. A generation job
 * calls the upstream (generate, or start for a long-running model, whose handle is saved with the first
 * status check in one transaction); each status check is its own scheduled job, so a waiting video holds
 * no worker slot. Retryable upstream failures start a new attempt after a backoff (Retry-After honoured)
 * within the task's deadline. Throws only when the process is shutting down (the job is then retried).
 */
@injectable()
export class ExecuteTask {
  private readonly results: TaskResultWriter;

  constructor(
    @inject(ModelRegistry) private readonly registry: ModelRegistry,
    @inject(TOKENS.TaskStore) private readonly tasks: TaskStore,
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    @inject(PriceBook) private readonly prices: PriceBook,
    @inject(TOKENS.CallLimiter) private readonly limiter: ProviderCallLimiter,
    @inject(InflightCalls) private readonly inflight: InflightCalls,
    @inject(TOKENS.ExecutionOptions) private readonly options: ExecuteTaskOptions,
    @inject(TOKENS.TaskCompletion) completion: TaskCompletion,
    @inject(FailTask) private readonly failTask: FailTask,
    @inject(TOKENS.Telemetry) private readonly telemetry: Telemetry = NO_TELEMETRY,
    /** The routes' shared circuit breakers (the router asks them before each attempt). */
    @inject(TOKENS.RouteHealth) protected readonly routeHealth: RouteHealth = ALWAYS_HEALTHY,
  ) {
    this.results = new TaskResultWriter(completion, blobs, prices, options);
  }

  /**
   * A generation job: the upstream call of a one-shot model, or the start of a long-running one. The task
   * is read by moving it to generating (one UPDATE ... RETURNING, no SELECT first); when the provider's
   * call limits are full, that move is undone and the step rescheduled.
   */
  async runGeneration(taskId: string, shutdown: AbortSignal): Promise<ExecuteOutcome> {
    const at = this.clock.now();
    const claimed = await this.tasks.markGenerating(taskId, at);
    if (!claimed) return 'skipped';
    const p = await this.prepared(claimed);
    if (typeof p === 'string') return p;
    const permit = await this.limiter.acquire(p.model.provider, taskId);
    if (!permit.acquired) {
      await this.uow.run(async (tx) => {
        await tx.tasks.releaseClaim?.(taskId, { attempts: claimed.attempts, at });
        await tx.jobs.enqueueGeneration(taskId, { startAfterMs: permit.retryAfterMs, providerId: p.model.provider });
      });
      return 'deferred';
    }
    try {
      const task = p.task;
      if (task.attempts === 1) this.telemetry.taskStarted({ modelId: p.model.id, provider: p.model.provider });
      const longRunning = p.adapter.isLongRunning(p.model.id);
      if (longRunning && task.upstreamHandle !== null) {
        // The upstream job was started by an earlier run of this job: follow it, never submit twice.
        return await this.scheduleCheck({ ...p, task }, task.pollSeq, null, null);
      }
      return await this.withCall({ ...p, task }, shutdown, async (call) => {
        const step = await this.timed(p, p.adapter.isLongRunning(p.model.id) ? 'start' : 'generate', () => firstStep(p.adapter, call));
        if (step.kind === 'started') {
          p.log.info({ attempt: task.attempts }, 'upstream job started');
          // Persisted with the first status check, in one transaction: a restarted worker follows this handle instead of submitting again.
          const outcome = await this.scheduleCheck({ ...p, task }, task.pollSeq, null, null, step);
          if (outcome === 'skipped') await this.cancelUpstream(p, call); // cancelled while starting: stop what was started
          return outcome;
        }
        return this.finish({ ...p, task }, step, call);
      });
    } finally {
      await permit.release();
    }
  }

  /** A status-check job of a long-running upstream job. Stale checks (superseded by a newer chain) are skipped. */
  async checkStatus(taskId: string, checkNumber: number, shutdown: AbortSignal): Promise<ExecuteOutcome> {
    const p = await this.prepare(taskId);
    if (typeof p === 'string') return p;
    const handle = p.task.upstreamHandle;
    if (p.task.status !== 'generating' || handle === null || p.task.pollSeq !== checkNumber) return 'skipped';
    // A verified completion webhook already says how the job ended: no upstream call, so no call permit.
    const webhook = p.task.webhookPayload !== null && p.adapter.readWebhook ? p.task.webhookPayload : null;
    const permit = webhook !== null ? UNLIMITED_PERMIT : await this.limiter.acquire(p.model.provider, taskId);
    if (!permit.acquired) {
      await this.uow.run((tx) => tx.jobs.enqueueStatusCheck(taskId, { checkNumber, startAfterMs: permit.retryAfterMs, providerId: p.model.provider }));
      return 'deferred';
    }
    try {
      return await this.withCall(p, shutdown, async (call) => {
        let step: StepResult;
        try {
          const event = webhook !== null ? p.adapter.readWebhook?.(webhook, call) : null;
          step = event ? stepFromStatus(p.model, event.status) : await this.timed(p, 'status', () => checkStep(p.adapter, handle, call));
        } catch (error) {
          // The check itself failed, not the upstream job: ask again later, unless asking again cannot help.
          if (!isUpstreamError(error) || !error.isRetryable || call.abortSignal.aborted) throw error;
          p.log.warn({ err: error.message, kind: error.kind }, 'status check failed; checking again later');
          return this.scheduleCheck(p, checkNumber, null, retryDelayMs(1, error.retryAfterMs));
        }
        if (step.kind === 'running') return this.scheduleCheck(p, checkNumber, step.progress, step.retryAfterMs);
        if (step.kind === 'failed') throw step.error;
        try {
          return await this.finish(p, step, call);
        } catch (error) {
          // The upstream job succeeded but its result could not be fetched just now: fetch it on a later
          // check instead of starting the generation again.
          if (!isUpstreamError(error) || !error.isRetryable || call.abortSignal.aborted) throw error;
          p.log.warn({ err: error.message }, 'result download failed; checking again later');
          return this.scheduleCheck(p, checkNumber, null, retryDelayMs(2, error.retryAfterMs));
        }
      });
    } finally {
      await permit.release();
    }
  }

  private async prepare(taskId: string): Promise<Prepared | ExecuteOutcome> {
    const task = await this.tasks.findById(taskId);
    if (!task || task.status === 'success' || task.status === 'fail') return 'skipped';
    return this.prepared(task);
  }

  /** What a step needs of an unfinished task, or its end when it cannot run any more (model gone, request invalid, past its deadline). */
  private async prepared(task: TaskRecord): Promise<Prepared | ExecuteOutcome> {
    const taskId = task.id;
    const log = this.logger.child({ taskId, modelId: task.modelId });
    const model = this.registry.find(task.modelId);
    if (!model) return this.fail(taskId, `Model ${task.modelId} is no longer available; no credits were charged.`, log);
    let request: NormalizedRequest;
    try {
      request = normalizeRunRequest(model, task.request);
    } catch (e) {
      return this.fail(taskId, `The request is no longer valid for this model: ${(e as Error).message} No credits were charged.`, log);
    }
    const availability = this.registry.availabilityOf(model.id);
    if (!availability.available) return this.fail(taskId, `${availability.reason} No credits were charged.`, log);
    const deadlineMs = this.options.deadlineMs[model.modality];
    if (task.startedAt && task.startedAt.getTime() + deadlineMs <= this.clock.now().getTime()) {
      return this.fail(taskId, deadlineMessage(deadlineMs), log);
    }
    return { task, model, request, adapter: this.registry.adapterFor(model.id), log };
  }

  /**
   * Runs one upstream step with the task's deadline, cancellation and shutdown in one AbortSignal, and
   * turns what it throws into the task's next state.
   */
  private async withCall(p: Prepared, shutdown: AbortSignal, step: (call: AdapterCall) => Promise<ExecuteOutcome>): Promise<ExecuteOutcome> {
    const deadlineMs = this.options.deadlineMs[p.model.modality];
    const startedAt = p.task.startedAt ?? this.clock.now();
    const remaining = startedAt.getTime() + deadlineMs - this.clock.now().getTime();
    if (remaining <= 0) return this.fail(p.task.id, deadlineMessage(deadlineMs), p.log);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DeadlineExceeded()), remaining);
    const cancelled = this.inflight.begin(p.task.id);
    const signal = AbortSignal.any([shutdown, deadline.signal, cancelled]);
    const call: AdapterCall = {
      taskId: p.task.id,
      model: p.model,
      request: p.request,
      abortSignal: signal,
      readInput: (url) => this.options.readInput(url, signal),
      webhookUrl: this.options.webhookUrl(p.model.provider, p.task.id),
    };
    try {
      return await step(call);
    } catch (error) {
      if (shutdown.aborted) throw error;
      if (cancelled.aborted || error instanceof TaskCancelled) {
        p.log.info({}, 'upstream call aborted: the task was cancelled');
        await this.discardFilesOfFailedTask(p.task.id);
        return 'skipped';
      }
      if (deadline.signal.aborted) {
        await this.cancelUpstream(p, call);
        return this.fail(p.task.id, deadlineMessage(deadlineMs), p.log);
      }
      return this.failed(p, error, startedAt.getTime() + deadlineMs);
    } finally {
      clearTimeout(timer);
      this.inflight.end(p.task.id);
    }
  }

  private async finish(p: Prepared, step: StepResult, call: AdapterCall): Promise<ExecuteOutcome> {
    if (step.kind !== 'done') throw new Error(`unexpected step ${step.kind}`);
    const outcome = await this.results.commitSuccess(p.task, p.model, p.request, step.result, call.abortSignal);
    p.log.info({ chargedMicro: outcome.chargedMicro, files: outcome.files }, outcome.ended ? 'task succeeded' : 'task had already ended');
    if (!outcome.ended) return 'skipped';
    const startedAt = p.task.startedAt;
    this.telemetry.taskEnded({
      modelId: p.model.id,
      provider: p.model.provider,
      outcome: 'success',
      generationMs: startedAt ? this.clock.now().getTime() - startedAt.getTime() : null,
    });
    return 'success';
  }

  /** One upstream call, timed and classified for the metrics (a failed status step is an answer, not an error). */
  private async timed<T>(p: Prepared, operation: UpstreamOperation, call: () => Promise<T>): Promise<T> {
    const start = performance.now();
    let errorClass: string | null = null;
    try {
      return await call();
    } catch (error) {
      errorClass = isUpstreamError(error) ? error.kind : error instanceof TaskCancelled || error instanceof DeadlineExceeded ? 'aborted' : 'internal';
      throw error;
    } finally {
      this.telemetry.upstreamCall({ provider: p.model.provider, operation, errorClass, durationMs: performance.now() - start });
    }
  }

  /** A retryable upstream failure within the attempts and the deadline starts a new attempt; anything else ends the task. */
  private async failed(p: Prepared, error: unknown, deadlineAt: number): Promise<ExecuteOutcome> {
    const attempts = (await this.tasks.findById(p.task.id))?.attempts ?? p.task.attempts;
    if (isUpstreamError(error) && error.isRetryable && attempts < this.options.scheduling.maxAttempts) {
      const delay = retryDelayMs(attempts, error.retryAfterMs);
      if (this.clock.now().getTime() + delay < deadlineAt) {
        const retried = await this.uow.run(async (tx) => {
          const task = await tx.tasks.findById(p.task.id);
          if (!task || task.status !== 'generating') return false;
          // A retry starts a new upstream job: the old handle is cleared with the scheduling of the new attempt.
          if (task.upstreamHandle !== null) await tx.tasks.saveUpstreamHandle(p.task.id, null);
          await tx.jobs.enqueueGeneration(p.task.id, { startAfterMs: delay, providerId: p.model.provider });
          return true;
        });
        p.log.warn({ err: error.message, kind: error.kind, attempt: attempts, retryInMs: delay }, 'retryable upstream failure; a new attempt is scheduled');
        return retried ? 'retrying' : 'skipped';
      }
    }
    p.log.warn({ err: error instanceof Error ? error.message : String(error), kind: isUpstreamError(error) ? error.kind : 'internal' }, 'task failed');
    const message = failureMessage(p.model, error, this.registry.availabilityOf(p.model.id), this.options.secrets);
    return this.fail(p.task.id, message, p.log, isUpstreamError(error) && error.requestId ? { requestId: error.requestId } : undefined);
  }

  /**
   * Schedules the check after check `current` (compare-and-set on the task's sequence): when a webhook or
   * another check moved the chain on meanwhile, this one is stale and schedules nothing. Check numbers only
   * grow, also across upstream jobs (a number is never reused); a new job's first check waits as a first check.
   */
  private async scheduleCheck(p: Prepared, current: number, progress: number | null, hintMs: number | null, started?: StartedJob): Promise<ExecuteOutcome> {
    const checkNumber = current + 1;
    const scheduled = await this.uow.run(async (tx) => {
      // The start's warnings are stored with its handle: the result's are added to them at success.
      if (started !== undefined) await tx.tasks.saveUpstreamHandle(p.task.id, started.handle, started.warnings);
      if (!(await tx.tasks.advanceCheck(p.task.id, current, progress))) return false;
      await tx.jobs.enqueueStatusCheck(p.task.id, {
        checkNumber,
        startAfterMs: pollDelayMs(p.adapter, p.model, started !== undefined ? 1 : checkNumber, hintMs),
        providerId: p.model.provider,
      });
      return true;
    });
    return scheduled ? 'waiting' : 'skipped';
  }

  private async cancelUpstream(p: Prepared, call: AdapterCall): Promise<void> {
    const handle = (await this.tasks.findById(p.task.id))?.upstreamHandle ?? null;
    if (handle === null || !p.adapter.cancel) return;
    try {
      await p.adapter.cancel(handle, { ...call, abortSignal: AbortSignal.timeout(10_000) });
    } catch (err) {
      p.log.warn({ err: (err as Error).message }, 'upstream cancel failed');
    }
  }

  /**
   * Results belong to successful tasks only: the files of a task whose row is `fail` are deleted (a worker
   * may have stored some before the cancel or failure). Those of a task whose row is `success` never are,
   * whoever asks: another attempt may have completed it meanwhile.
   */
  private async discardFilesOfFailedTask(taskId: string): Promise<void> {
    if ((await this.tasks.findById(taskId))?.status === 'fail') await this.blobs.deleteTask(taskId);
  }

  private async fail(taskId: string, message: string, log: Logger, metadata?: { requestId: string }): Promise<ExecuteOutcome> {
    const ended = await this.failTask.execute(taskId, message, metadata);
    await this.discardFilesOfFailedTask(taskId);
    log.info({ message }, ended ? 'task failed' : 'task had already ended');
    return ended ? 'fail' : 'skipped';
  }
}
