import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { ModelRegistry } from '../catalog/model-registry.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { SchedulingOptions } from '../execution/scheduling.js';
import type { Clock, IdGenerator, Logger } from '../ports/system.js';
import { allowListRefusal } from '../keys/key-admission.js';
import { keyControlsOf } from '../model/api-key.js';
import { keyRefusalError } from '../keys/key-refusal-error.js';
import type { TaskIntake, TaskIntakeResult } from '../ports/task-intake.js';
import { OPEN_GATE, type SubmissionGate } from '../ports/submission-gate.js';
import { NO_TELEMETRY, type SubmissionRefusal, type Telemetry } from '../ports/telemetry.js';
import { parseRunRequest } from '../run/normalize-request.js';
import { RoutePlanner } from '../routing/route-planner.js';
import type { NormalizedRequest } from '../model/normalized-request.js';
import { isPrivateUrlLiteral } from '../util/address-guard.js';
import { requestHash } from '../run/request-hash.js';
import type { JsonObject } from '../util/json.js';
import type { AuthContext } from './auth-context.js';
import { CHALLENGE } from './authenticate.js';

export interface RunAccepted {
  code: 200;
  message: string;
  task_id: string;
  status: 'waiting';
}

/**
 * POST /run/{model_id}: validate against the model's own schema (each candidate route's), plan the routes
 * and quote them (markup included; the hold is the highest candidate quote), then let the
 * TaskIntake write it atomically: the hold, the task (admitted to one of the user's running slots or
 * queued behind them) and its job. Any refusal happens before a write, or rolls back.
 */
@injectable()
export class SubmitRun {
  constructor(
    @inject(ModelRegistry) private readonly registry: ModelRegistry,
    @inject(TOKENS.TaskIntake) private readonly intake: TaskIntake,
    @inject(TOKENS.Ids) private readonly ids: IdGenerator,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    @inject(TOKENS.Scheduling) private readonly scheduling: SchedulingOptions,
    @inject(RoutePlanner) private readonly planner: RoutePlanner,
    @inject(TOKENS.AllowPrivateInputs) private readonly allowPrivateInputs: boolean = false,
    @inject(TOKENS.SubmissionGate) private readonly gate: SubmissionGate = OPEN_GATE,
    @inject(TOKENS.Telemetry) private readonly telemetry: Telemetry = NO_TELEMETRY,
    @inject(TOKENS.Clock) private readonly clock: Clock = { now: () => new Date() },
  ) {}

  /**
   * With an idempotency key, the same key and request within 24 hours answer the first response and
   * create nothing; the same key with another request is a 409.
   */
  async execute(auth: AuthContext, modelId: string, body: unknown, options: { idempotencyKey?: string } = {}): Promise<RunAccepted> {
    const model = this.registry.requireRunnable(modelId);
    // The key's allow-lists as authenticated (maybe cached): a refusal before validation, nothing written.
    // The intake checks them again against the stored key, in the transaction that holds.
    const listed = auth.key ? allowListRefusal(keyControlsOf(auth.key), model) : null;
    if (listed) throw keyRefusalError(listed, { modelId: model.id, provider: model.provider, modality: model.modality });
    const request = parseRunRequest(body);
    // The candidate routes (one for a provider model); each checked the request against its own schema.
    const plan = this.planner.plan(model, request);
    if (!this.allowPrivateInputs) for (const c of plan.candidates) refusePrivateInputs(c.request);
    // One hold for the task: the highest quote among its candidates, whichever route answers.
    const quote = plan.hold;
    const key = options.idempotencyKey;
    const hash = key === undefined ? null : requestHash(model.id, request);
    // Back-pressure: with too many generation jobs waiting, refuse before anything is held or written.
    const gate = this.gate.state();
    if (!gate.open) {
      this.telemetry.submissionRefused({ reason: 'overloaded' });
      throw new GatewayError(
        'overloaded',
        `The gateway has ${gate.waiting} generation jobs waiting (limit ${gate.limit}); nothing was held. Submit again after Retry-After seconds.`,
        { headers: { 'Retry-After': String(gate.retryAfterSeconds) } },
      );
    }
    const taskId = this.ids.uuid();
    const accepted: RunAccepted = { code: 200, message: 'Task accepted.', task_id: taskId, status: 'waiting' };
    const intake = () =>
      this.intake.accept({
        task: {
          id: taskId,
          userId: auth.userId,
          memberId: auth.memberId ?? auth.userId,
          apiKeyId: auth.apiKeyId,
          modelId: model.id,
          modality: model.modality,
          request,
          callbackUrl: request.callback_url ?? null,
          quotedMicro: quote.chargeMicro,
          quotedCostMicro: quote.costMicro,
        },
        maxRunning: this.scheduling.maxRunningPerUser[model.modality],
        maxQueued: this.scheduling.maxQueuedPerUser,
        providerId: plan.candidates[0]?.providerId ?? model.provider,
        at: this.clock.now(),
        idempotency: key === undefined || hash === null ? null : { key, requestHash: hash, response: { ...accepted } },
      });
    let result = await intake();
    // Another request with the same key committed first: this one rolled back; answer from its record.
    if (result.outcome === 'idempotency_race') result = await intake();
    if (result.outcome !== 'accepted') {
      const refused = REFUSAL_REASON[result.outcome];
      if (refused) this.telemetry.submissionRefused({ reason: refused });
      return refusalOrReplay(result, hash, model);
    }
    this.telemetry.taskSubmitted({ modelId: model.id, provider: model.provider });
    this.logger.info({ taskId, modelId: model.id, userId: auth.userId, quotedMicro: quote.chargeMicro, admitted: result.admitted }, 'task accepted');
    return accepted;
  }
}

const REFUSAL_REASON: Readonly<Record<Exclude<TaskIntakeResult, { outcome: 'accepted' }>['outcome'], SubmissionRefusal | null>> = {
  replay: null,
  idempotency_race: null,
  insufficient_credits: 'insufficient_credits',
  key_revoked: 'key_revoked',
  key_refused: 'key_refused',
  queue_full: 'too_many_tasks',
};

/** Throws the refusal (402, 401, 429), or answers the replay of an earlier request with the same Idempotency-Key (409 when it differs). */
export function refusalOrReplay(
  result: Exclude<TaskIntakeResult, { outcome: 'accepted' }>,
  hash: string | null,
  model: { readonly id: string; readonly provider: string; readonly modality: string },
): RunAccepted {
  const modality = model.modality;
  switch (result.outcome) {
    case 'replay':
      return replay(result, hash ?? '');
    case 'insufficient_credits':
      throw new GatewayError('insufficient_credits', 'The available balance cannot cover the price of this run; top up with POST /api/v1/billing/topup.');
    case 'key_revoked':
      throw new GatewayError('authentication_failed', 'The API key was revoked while the request was in flight.', { headers: CHALLENGE });
    case 'queue_full':
      throw new GatewayError(
        'too_many_tasks',
        `You already have ${result.admitted} ${modality} tasks running and ${result.queued} queued, the most this gateway accepts; submit again when some have ended.`,
        { headers: { 'Retry-After': '5' } },
      );
    case 'key_refused':
      throw keyRefusalError(result.refusal, { modelId: model.id, provider: model.provider, modality: model.modality });
    case 'idempotency_race':
      throw new Error('an Idempotency-Key was raced twice in a row');
  }
}

/** Reference inputs on loopback or private addresses are refused before any hold (the fetch guard also refuses names that resolve there). */
export function refusePrivateInputs(req: NormalizedRequest): void {
  if (req.modality === 'chat') return;
  const lists: [string, readonly string[]][] = [[`${req.modality}_params.image_urls`, req.imageUrls]];
  if (req.modality === 'video') lists.push(['video_params.video_urls', req.videoUrls]);
  for (const [param, urls] of lists) {
    const bad = urls.findIndex(isPrivateUrlLiteral);
    if (bad >= 0) throw new GatewayError('invalid_request', `${param}[${bad}] points to a loopback or private address; give a public URL.`, { param });
  }
}

function replay(earlier: { readonly requestHash: string; readonly response: JsonObject }, hash: string): RunAccepted {
  if (earlier.requestHash !== hash) {
    throw new GatewayError('conflict', 'This Idempotency-Key was already used with a different request.', { param: 'Idempotency-Key' });
  }
  const r = earlier.response;
  return { code: 200, message: String(r['message']), task_id: String(r['task_id']), status: 'waiting' };
}
