import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { ModelRegistry } from '../catalog/model-registry.js';
import { isUpstreamError } from '../errors/upstream-error.js';
import { checkStep, stepFromStatus, type StepResult } from '../execution/adapter-step.js';
import type { ExecuteTaskOptions } from '../execution/execution-options.js';
import { InflightCalls, TaskCancelled } from '../execution/inflight-calls.js';
import { retryDelayMs } from '../execution/retry-policy.js';
import { DeadlineExceeded, deadlineMessage, failureMessage } from '../execution/task-failure.js';
import type { ExecuteOutcome, Prepared, Runnable } from './prepared-task.js';
import { TaskResultWriter } from '../execution/task-result-writer.js';
import { scheduleCheck, scheduleRetry } from './task-rescheduling.js';
import { adapterCallOf, cancelUpstream, timedUpstreamCall } from './upstream-call.js';
import type { ModelDescriptor } from '../model/model.js';
import type { TaskRecord } from '../model/task.js';
import { PriceBook } from '../pricing/price-book.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { ProviderCallLimiter } from '../ports/call-limiter.js';
import type { AdapterCall } from '../ports/provider-adapter.js';
import type { Clock, Logger } from '../ports/system.js';
import type { TaskStore, UnitOfWork } from '../ports/stores.js';
import type { TaskCompletion } from '../ports/task-completion.js';
import { NO_TELEMETRY, type Telemetry } from '../ports/telemetry.js';
import { ALWAYS_HEALTHY, type RouteHealth } from '../ports/route-health.js';
import { attemptFirstStep } from './attempt-first-step.js';
import { FailTask } from './fail-task.js';
import { UpstreamError } from '../errors/upstream-error.js';
import { RouteAttempts, type AttemptStart } from '../routing/route-attempts.js';
import type { RouteCandidate } from '../routing/route-plan.js';
import { RoutePlanner } from '../routing/route-planner.js';
import { TaskRoutes } from '../routing/task-routes.js';

export { DEFAULT_DEADLINES_MS, type ExecuteTaskOptions } from '../execution/execution-options.js';
export type { ExecuteOutcome } from './prepared-task.js';

const UNLIMITED_PERMIT = { acquired: true, release: async () => undefined } as const;

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
  private readonly routes: TaskRoutes;
  private readonly attempts: RouteAttempts;

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
    @inject(RoutePlanner) planner?: RoutePlanner,
  ) {
    this.results = new TaskResultWriter(completion, blobs, prices, options);
    this.routes = new TaskRoutes(registry, planner ?? new RoutePlanner(registry, prices, routeHealth));
    this.attempts = new RouteAttempts(tasks, routeHealth, clock);
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
    const r = await this.runnable(claimed);
    if (typeof r === 'string') return r;
    const chosen = await this.chooseRoute(r);
    if (typeof chosen === 'string') return chosen;
    const { p, start, fallbackLeft } = chosen;
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
        return await scheduleCheck(this.uow, { ...p, task }, task.pollSeq, null, null);
      }
      if (start === null) throw new Error('no attempt was admitted'); // unreachable: chooseRoute admits one unless following a handle
      return await this.withCall({ ...p, task }, shutdown, async (call) => {
        const budgetMs = fallbackLeft ? Math.floor((this.deadlineAt(p.task, p.model) - this.clock.now().getTime()) / 2) : null;
        const step = await attemptFirstStep(this.attempts, this.telemetry, p, call, start, budgetMs);
        if (step.kind === 'started') {
          p.log.info({ attempt: task.attempts }, 'upstream job started');
          // Persisted with the first status check, in one transaction: a restarted worker follows this handle instead of submitting again.
          const outcome = await scheduleCheck(this.uow, { ...p, task }, task.pollSeq, null, null, step);
          if (outcome === 'skipped') await cancelUpstream(this.tasks, p, call); // cancelled while starting: stop what was started
          return outcome;
        }
        return this.finish({ ...p, task }, step, call);
      });
    } finally {
      await permit.release();
    }
  }

  /**
   * The route of this generation job: a task whose long-running upstream job was started follows it on its
   * route (never submitted twice); otherwise the first candidate (in the order after the last failure) whose
   * breaker admits an attempt. When every breaker refuses, the attempt fails as a retryable `server` error.
   */
  private async chooseRoute(r: Runnable): Promise<{ p: Prepared; start: AttemptStart | null; fallbackLeft: boolean } | ExecuteOutcome> {
    if (r.task.upstreamHandle !== null) {
      const current = this.routes.current(r.task);
      if (typeof current === 'string') return this.fail(r.task.id, current, r.log);
      return { p: { ...r, ...current, plan: null }, start: null, fallbackLeft: false };
    }
    const next = this.routes.next(r.task, r.requested);
    if (typeof next === 'string') return this.fail(r.task.id, next, r.log);
    const on = (c: RouteCandidate): Prepared => ({ task: r.task, log: r.log, model: c.model, request: c.request, adapter: this.routes.adapterOf(c), plan: next.plan });
    for (const [i, c] of next.ordered.entries()) {
      const start = await this.attempts.admit(r.task.id, c);
      if (start) return { p: on(c), start, fallbackLeft: i < next.ordered.length - 1 };
    }
    const first = next.ordered[0]!;
    const error = new UpstreamError(`every route of ${r.requested.id} is refused by its circuit breaker (${next.ordered.map((c) => c.routeId).join(', ')})`, { kind: 'server' });
    return this.failed(on(first), error, this.deadlineAt(r.task, r.requested));
  }

  private deadlineAt(task: TaskRecord, model: ModelDescriptor): number {
    return (task.startedAt ?? this.clock.now()).getTime() + this.options.deadlineMs[model.modality];
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
          step = event ? stepFromStatus(p.model, event.status) : await timedUpstreamCall(this.telemetry, p, 'status', () => checkStep(p.adapter, handle, call));
        } catch (error) {
          // The check itself failed, not the upstream job: ask again later (the job is followed on its route
          // until the deadline, never submitted elsewhere while it may still bill), unless asking again cannot
          // help: then the upstream job is cancelled where the adapter can, and the task fails.
          if (!isUpstreamError(error) || !error.isRetryable || call.abortSignal.aborted) {
            if (!call.abortSignal.aborted) await cancelUpstream(this.tasks, p, call);
            throw error;
          }
          p.log.warn({ err: error.message, kind: error.kind }, 'status check failed; checking again later');
          return scheduleCheck(this.uow, p, checkNumber, null, retryDelayMs(1, error.retryAfterMs));
        }
        if (step.kind === 'running') return scheduleCheck(this.uow, p, checkNumber, step.progress, step.retryAfterMs);
        if (step.kind === 'failed') {
          // The upstream job ended in failure (it bills nothing more): logged as a failed attempt of its route.
          await this.attempts.failed(p.task.id, { route: { routeId: p.model.id, providerId: p.model.provider }, startedAt: this.clock.now() }, step.error);
          throw step.error;
        }
        try {
          return await this.finish(p, step, call);
        } catch (error) {
          // The upstream job succeeded but its result could not be fetched just now: fetch it on a later
          // check instead of starting the generation again.
          if (!isUpstreamError(error) || !error.isRetryable || call.abortSignal.aborted) throw error;
          p.log.warn({ err: error.message }, 'result download failed; checking again later');
          return scheduleCheck(this.uow, p, checkNumber, null, retryDelayMs(2, error.retryAfterMs));
        }
      });
    } finally {
      await permit.release();
    }
  }

  /** A status check: the task on the route its upstream job runs on. */
  private async prepare(taskId: string): Promise<Prepared | ExecuteOutcome> {
    const task = await this.tasks.findById(taskId);
    if (!task || task.status === 'success' || task.status === 'fail') return 'skipped';
    const r = await this.runnable(task);
    if (typeof r === 'string') return r;
    const current = this.routes.current(task);
    if (typeof current === 'string') return this.fail(task.id, current, r.log);
    return { ...r, ...current, plan: null };
  }

  /**
   * An unfinished task that may still run, or its end when it cannot (model gone or unavailable, past its
   * deadline: a long-running upstream job it started is then cancelled where the adapter can).
   */
  private async runnable(task: TaskRecord): Promise<Runnable | ExecuteOutcome> {
    const taskId = task.id;
    const log = this.logger.child({ taskId, modelId: task.modelId });
    const requested = this.registry.find(task.modelId);
    if (!requested) return this.fail(taskId, `Model ${task.modelId} is no longer available; no credits were charged.`, log);
    const availability = this.registry.availabilityOf(requested.id);
    if (!availability.available) return this.fail(taskId, `${availability.reason} No credits were charged.`, log);
    const deadlineMs = this.options.deadlineMs[requested.modality];
    if (task.startedAt && task.startedAt.getTime() + deadlineMs <= this.clock.now().getTime()) {
      const current = task.upstreamHandle !== null ? this.routes.current(task) : null;
      if (current !== null && typeof current !== 'string') {
        await cancelUpstream(this.tasks, { task, log, plan: null, ...current }, null);
      }
      return this.fail(taskId, deadlineMessage(deadlineMs), log);
    }
    return { task, requested, log };
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
    const call = adapterCallOf(p, signal, this.options);
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
        await cancelUpstream(this.tasks, p, call);
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

  /** A retryable upstream failure within the attempts and the deadline starts a new attempt; anything else ends the task. */
  private async failed(p: Prepared, error: unknown, deadlineAt: number): Promise<ExecuteOutcome> {
    const retried = await scheduleRetry({ tasks: this.tasks, uow: this.uow, clock: this.clock, options: this.options }, p, error, deadlineAt);
    if (retried !== null) return retried;
    p.log.warn({ err: error instanceof Error ? error.message : String(error), kind: isUpstreamError(error) ? error.kind : 'internal' }, 'task failed');
    const message = failureMessage(p.model, error, this.registry.availabilityOf(p.model.id), this.options.secrets);
    return this.fail(p.task.id, message, p.log, isUpstreamError(error) && error.requestId ? { requestId: error.requestId } : undefined);
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
