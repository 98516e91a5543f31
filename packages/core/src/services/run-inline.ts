import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { ModelRegistry } from '../catalog/model-registry.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ExecuteTaskOptions } from '../execution/execution-options.js';
import { InflightCalls } from '../execution/inflight-calls.js';
import { TaskResultWriter } from '../execution/task-result-writer.js';
import type { ModelDescriptor } from '../model/model.js';
import type { TaskRecord } from '../model/task.js';
import { PriceBook } from '../pricing/price-book.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { CallPermit, ProviderCallLimiter } from '../ports/call-limiter.js';
import type { AdapterCall, GenerationResult, ProviderAdapter, UpstreamMetadata } from '../ports/provider-adapter.js';
import type { TaskStore } from '../ports/stores.js';
import { OPEN_GATE, type SubmissionGate } from '../ports/submission-gate.js';
import type { Clock, IdGenerator, Logger } from '../ports/system.js';
import type { TaskCompletion } from '../ports/task-completion.js';
import type { TaskIntake } from '../ports/task-intake.js';
import { NO_TELEMETRY, type Telemetry } from '../ports/telemetry.js';
import { parseRunRequest } from '../run/normalize-request.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import { requestHash } from '../run/request-hash.js';
import type { AuthContext } from './auth-context.js';
import { FailTask } from './fail-task.js';
import { asksForRouting } from './task-view.js';
import { ALWAYS_HEALTHY, type RouteHealth } from '../ports/route-health.js';
import { fallsBack } from '../routing/fallback-rule.js';
import { RouteAttempts, type AttemptStart } from '../routing/route-attempts.js';
import type { RouteCandidate, RoutePlan } from '../routing/route-plan.js';
import { RoutePlanner } from '../routing/route-planner.js';
import { refusalOrReplay } from './submit-run.js';

export interface InlineOptions {
  readonly idempotencyKey?: string;
  /** The caller's whole request (a dialect's body), hashed with the run request for the Idempotency-Key check. */
  readonly fingerprint?: unknown;
  /**
   * A chat call's whole input text when the run request holds only its first part (a coding agent's
   * conversation and tool definitions run far past the run limits on prompt and system text): the hold
   * counts this text instead of the request's prompt and system, so the charge is never capped below the
   * upstream's input. Ignored for other modalities.
   */
  readonly heldInput?: string;
}

/** The outcome of starting an inline call: a running task, or the task an earlier call with the same Idempotency-Key created. */
export type InlineStart = { readonly kind: 'started'; readonly run: InlineRun } | { readonly kind: 'replay'; readonly taskId: string };

/** One attempt of an inline call on one route (from `InlineRun.attempt`). */
export interface InlineAttempt extends AttemptStart {
  readonly route: RouteCandidate;
  readonly adapter: ProviderAdapter;
  /** The adapter call of this attempt: the route's model and request, aborted by the run's signal and `signal`. */
  adapterCall(signal: AbortSignal): AdapterCall;
}

/**
 * A task run by the API process itself (a streamed chat on /v1): held and written as `generating` before
 * the first upstream byte; ended exactly once by `succeed` (charged from the usage, never above the hold,
 * by the same TaskResultWriter and TaskCompletion as a worker's task) or `fail` (the hold released by FailTask).
 *
 * Routing (issue 21): `candidates` are the routes to try, best first. For each, `attempt(route)` asks the
 * route's breaker (null: open, logged as skipped: try the next); a failure BEFORE the first byte reached the
 * client is reported with `recordAttemptFailure(attempt, error)`, which says whether the policy lets the
 * call fall back to the next candidate; the route that answered is given to `succeed(result, attempt)`,
 * which charges at that route's price. After the first byte there is no fallback: `fail` or `succeed`.
 * `model`, `adapter` and `request` are the first candidate's (a provider model: the model itself).
 */
export class InlineRun {
  private ended = false;
  /** Attempts begun on this run, skipped ones included (only a first attempt on the requested model goes unlogged). */
  private attemptsStarted = 0;
  readonly signal: AbortSignal;
  private readonly timer: NodeJS.Timeout;
  readonly model: ModelDescriptor;
  readonly adapter: ProviderAdapter;
  readonly request: NormalizedRequest;

  constructor(
    readonly task: TaskRecord,
    readonly plan: RoutePlan,
    private readonly permit: Extract<CallPermit, { acquired: true }>,
    private readonly deps: {
      results: TaskResultWriter;
      failTask: FailTask;
      inflight: InflightCalls;
      telemetry: Telemetry;
      clock: Clock;
      logger: Logger;
      readInput: ExecuteTaskOptions['readInput'];
      adapterFor: (routeId: string) => ProviderAdapter;
      attempts: RouteAttempts;
    },
    deadlineMs: number,
  ) {
    const first = plan.candidates[0];
    if (!first) throw new Error('an inline run needs a candidate route');
    this.model = first.model;
    this.request = first.request;
    this.adapter = deps.adapterFor(first.routeId);
    const deadline = new AbortController();
    this.timer = setTimeout(() => deadline.abort(new Error(`the call passed its deadline of ${Math.round(deadlineMs / 1000)} s`)), deadlineMs);
    this.timer.unref();
    // Cancelling the task (POST /run/tasks/{id}/cancel, here or in another process) aborts the call.
    this.signal = AbortSignal.any([deps.inflight.begin(task.id), deadline.signal]);
  }

  get taskId(): string {
    return this.task.id;
  }

  /** The routes to try, best first (one for a provider model without fallback `models`). */
  get candidates(): readonly RouteCandidate[] {
    return this.plan.candidates;
  }

  /** The adapter call of this task on its first candidate (for a one-shot or long-running model run in process), aborted by `signal` too. */
  adapterCall(signal: AbortSignal): AdapterCall {
    return this.callOn(this.model, this.request, signal);
  }

  /** Starts an attempt on `route` when its breaker admits it; null when it is open (logged as skipped: try the next candidate). */
  async attempt(route: RouteCandidate): Promise<InlineAttempt | null> {
    this.attemptsStarted++;
    const start = await this.deps.attempts.admit(this.task.id, route);
    if (!start) return null;
    return { ...start, route, adapter: this.deps.adapterFor(route.routeId), adapterCall: (signal) => this.callOn(route.model, route.request, signal) };
  }

  /**
   * Reports an attempt that failed before any output reached the client (logged, told to the breaker).
   * `fallback`: the policy lets the call move on to the next candidate (a retryable class, or a refusal the
   * model's policy falls back on) and the run has not ended or been aborted.
   */
  async recordAttemptFailure(attempt: InlineAttempt, error: unknown): Promise<{ fallback: boolean }> {
    await this.deps.attempts.failed(this.task.id, attempt, error);
    return { fallback: !this.ended && !this.signal.aborted && fallsBack(error, this.plan.policy) };
  }

  private callOn(model: ModelDescriptor, request: NormalizedRequest, signal: AbortSignal): AdapterCall {
    const abortSignal = AbortSignal.any([this.signal, signal]);
    return { taskId: this.task.id, model, request, abortSignal, readInput: (url) => this.deps.readInput(url, abortSignal), webhookUrl: null };
  }

  /**
   * Commits what was produced: the output stored, the charge from `result.usage` at the price of the route
   * that answered (`attempt`; default the first candidate), never above the hold. `brokenBy`: the error that
   * ended the attempt's stream after its first byte (no fallback then: what was produced is charged).
   */
  async succeed(result: GenerationResult, attempt?: InlineAttempt, brokenBy?: unknown): Promise<{ chargedMicro: number; ended: boolean }> {
    if (!this.close()) return { chargedMicro: 0, ended: false };
    try {
      // A stream that broke after output (`brokenBy`) is charged for what it produced, at its route's price, but logged as the route's failure.
      const alone = this.attemptsStarted === 1 && attempt?.route.routeId === this.task.modelId && !asksForRouting(this.task);
      if (attempt) await (brokenBy === undefined ? this.deps.attempts.succeeded(this.task.id, attempt, 'success', alone) : this.deps.attempts.failed(this.task.id, attempt, brokenBy));
      const model = attempt?.route.model ?? this.model;
      const request = attempt?.route.request ?? this.request;
      const outcome = await this.deps.results.commitSuccess(this.task, model, request, result, AbortSignal.timeout(30_000));
      const startedAt = this.task.startedAt;
      if (outcome.ended) {
        this.deps.telemetry.taskEnded({
          modelId: this.model.id,
          provider: this.model.provider,
          outcome: 'success',
          generationMs: startedAt ? this.deps.clock.now().getTime() - startedAt.getTime() : null,
        });
      }
      this.deps.logger.info({ taskId: this.task.id, chargedMicro: outcome.chargedMicro, ended: outcome.ended }, 'inline task settled');
      return { chargedMicro: outcome.chargedMicro, ended: outcome.ended };
    } finally {
      await this.permit.release();
    }
  }

  /** Ends the task in `fail` with nothing charged (the upstream produced nothing usable). */
  async fail(message: string, metadata?: UpstreamMetadata): Promise<void> {
    if (!this.close()) return;
    try {
      await this.deps.failTask.execute(this.task.id, message, metadata);
      this.deps.logger.info({ taskId: this.task.id, message }, 'inline task failed');
    } finally {
      await this.permit.release();
    }
  }

  private close(): boolean {
    if (this.ended) return false;
    this.ended = true;
    clearTimeout(this.timer);
    this.deps.inflight.end(this.task.id);
    return true;
  }
}

/**
 * Starts a call the API process runs itself, through the rules of POST /run/{model_id}: the model's
 * schema, the quote, the back-pressure gate, the provider's call limits, and the TaskIntake (the hold, the
 * key still active, the user's running slots; never queued), then marks the task generating.
 */
@injectable()
export class RunInline {
  private readonly results: TaskResultWriter;

  constructor(
    @inject(ModelRegistry) private readonly registry: ModelRegistry,
    @inject(TOKENS.TaskIntake) private readonly intake: TaskIntake,
    @inject(TOKENS.TaskStore) private readonly tasks: TaskStore,
    @inject(TOKENS.Ids) private readonly ids: IdGenerator,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    @inject(PriceBook) private readonly prices: PriceBook,
    @inject(TOKENS.ExecutionOptions) private readonly options: ExecuteTaskOptions,
    @inject(TOKENS.CallLimiter) private readonly limiter: ProviderCallLimiter,
    @inject(InflightCalls) private readonly inflight: InflightCalls,
    @inject(TOKENS.BlobStore) blobs: BlobStore,
    @inject(TOKENS.TaskCompletion) completion: TaskCompletion,
    @inject(FailTask) private readonly failTask: FailTask,
    @inject(RoutePlanner) private readonly planner: RoutePlanner,
    @inject(TOKENS.SubmissionGate) private readonly gate: SubmissionGate = OPEN_GATE,
    @inject(TOKENS.Telemetry) private readonly telemetry: Telemetry = NO_TELEMETRY,
    @inject(TOKENS.RouteHealth) routeHealth: RouteHealth = ALWAYS_HEALTHY,
  ) {
    this.results = new TaskResultWriter(completion, blobs, prices, options);
    this.attempts = new RouteAttempts(tasks, routeHealth, clock);
  }

  private readonly attempts: RouteAttempts;

  /**
   * `body` is a run request (prompt, llm_params...) as POST /run/{model_id} takes it, its routing fields
   * `provider` and `models` included (requestRoutingSchema): what is quoted and stored on the task. The
   * hold is the highest quote among the candidate routes.
   */
  async begin(auth: AuthContext, modelId: string, body: unknown, options: InlineOptions = {}): Promise<InlineStart> {
    const model = this.registry.requireRunnable(modelId);
    const request = parseRunRequest(body);
    const heldInput = options.heldInput;
    const plan = this.planner.plan(model, request, {
      quoted: (n) => (heldInput !== undefined && n.modality === 'chat' ? { ...n, prompt: heldInput, system: null } : n),
    });
    const quote = plan.hold;
    const first = plan.candidates[0]!;
    const key = options.idempotencyKey;
    const hash = key === undefined ? null : requestHash(model.id, options.fingerprint === undefined ? request : { request, dialect: options.fingerprint });
    const gate = this.gate.state();
    if (!gate.open) {
      throw new GatewayError('overloaded', `The gateway is overloaded (${gate.waiting} generation jobs waiting); nothing was held. Retry after Retry-After seconds.`, {
        headers: { 'Retry-After': String(gate.retryAfterSeconds) },
      });
    }
    const taskId = this.ids.uuid();
    const permit = await this.limiter.acquire(first.providerId, taskId);
    if (!permit.acquired) {
      const seconds = Math.max(1, Math.ceil(permit.retryAfterMs / 1000));
      throw new GatewayError('overloaded', `The provider ${first.providerId} is at its call limit on this gateway; nothing was held. Retry after ${seconds} s.`, {
        headers: { 'Retry-After': String(seconds) },
      });
    }
    let result: Awaited<ReturnType<TaskIntake['accept']>>;
    try {
      result = await this.intake.accept({
        task: {
          id: taskId,
          userId: auth.userId,
          memberId: auth.memberId ?? auth.userId,
          apiKeyId: auth.apiKeyId,
          modelId: model.id,
          modality: model.modality,
          request,
          callbackUrl: null,
          quotedMicro: quote.chargeMicro,
          quotedCostMicro: quote.costMicro,
        },
        maxRunning: this.options.scheduling.maxRunningPerUser[model.modality],
        maxQueued: 0,
        providerId: first.providerId,
        at: this.clock.now(),
        inline: true,
        idempotency: key === undefined || hash === null ? null : { key, requestHash: hash, response: { task_id: taskId } },
      });
    } catch (error) {
      await permit.release();
      throw error;
    }
    if (result.outcome !== 'accepted') {
      await permit.release();
      if (result.outcome === 'idempotency_race') throw new GatewayError('conflict', 'Another request with this Idempotency-Key is in flight; retry.', { param: 'Idempotency-Key' });
      // A refusal throws (402, 401, 429); a replay answers the earlier call's task.
      return { kind: 'replay', taskId: refusalOrReplay(result, hash, model).task_id };
    }
    this.telemetry.taskSubmitted({ modelId: model.id, provider: model.provider });
    const task = await this.tasks.markGenerating(taskId, this.clock.now());
    if (!task) {
      await permit.release();
      throw new GatewayError('conflict', 'The task ended before it started (cancelled); nothing was charged.');
    }
    this.telemetry.taskStarted({ modelId: model.id, provider: model.provider });
    const deps = {
      results: this.results,
      failTask: this.failTask,
      inflight: this.inflight,
      telemetry: this.telemetry,
      clock: this.clock,
      logger: this.logger,
      readInput: this.options.readInput,
      adapterFor: (routeId: string) => this.registry.adapterFor(routeId),
      attempts: this.attempts,
    };
    return { kind: 'started', run: new InlineRun(task, plan, permit, deps, this.options.deadlineMs[model.modality]) };
  }
}
