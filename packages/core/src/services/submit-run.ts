import type { ModelRegistry } from '../catalog/model-registry.js';
import { GatewayError } from '../errors/gateway-error.js';
import { admitOnSubmit, type SchedulingOptions } from '../execution/scheduling.js';
import type { PriceBook } from '../pricing/price-book.js';
import type { IdGenerator, Logger } from '../ports/system.js';
import type { UnitOfWork } from '../ports/stores.js';
import { validateRunRequest } from '../run/normalize-request.js';
import type { NormalizedRequest } from '../run/normalized-request.js';
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
 * POST /run/{model_id}: validate against the model's own schema, quote (markup included), then in ONE
 * transaction hold the credits, insert the task as waiting and, when the user has a free running slot,
 * enqueue its job. Any refusal happens before a write.
 */
export class SubmitRun {
  constructor(
    private readonly registry: ModelRegistry,
    private readonly uow: UnitOfWork,
    private readonly ids: IdGenerator,
    private readonly logger: Logger,
    private readonly prices: PriceBook,
    private readonly scheduling: SchedulingOptions,
    private readonly allowPrivateInputs: boolean = false,
  ) {}

  /**
   * With an idempotency key, the same key and request within 24 hours answer the first response and
   * create nothing; the same key with another request is a 409.
   */
  async execute(auth: AuthContext, modelId: string, body: unknown, options: { idempotencyKey?: string } = {}): Promise<RunAccepted> {
    const model = this.registry.requireRunnable(modelId);
    const { request, normalized } = validateRunRequest(model, body);
    if (!this.allowPrivateInputs) refusePrivateInputs(normalized);
    const quote = this.prices.quote(model, normalized);
    const key = options.idempotencyKey;
    const hash = key === undefined ? null : requestHash(model.id, request);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.uow.run(async (tx) => {
          if (key !== undefined && hash !== null) {
            const earlier = await tx.idempotency.find(auth.userId, key);
            if (earlier) return replay(earlier, hash);
          }
          // A key revoked while this request was in flight fails it here, before anything commits.
          if (auth.apiKeyId !== null && !(await tx.keys.lockActive(auth.apiKeyId))) {
            throw new GatewayError('authentication_failed', 'The API key was revoked while the request was in flight.', { headers: CHALLENGE });
          }
          const taskId = this.ids.uuid();
          // The hold locks the user's account row: admission below counts the user's tasks without a race.
          await tx.ledger.hold(auth.userId, taskId, quote.chargeMicro);
          const admitted = await admitOnSubmit(tx, auth.userId, model.modality, this.scheduling);
          await tx.tasks.insert({
            id: taskId,
            userId: auth.userId,
            apiKeyId: auth.apiKeyId,
            modelId: model.id,
            modality: model.modality,
            request,
            callbackUrl: request.callback_url ?? null,
            quotedMicro: quote.chargeMicro,
            quotedCostMicro: quote.costMicro,
            admitted,
          });
          if (admitted) await tx.jobs.enqueueGeneration(taskId, { providerId: model.provider });
          const accepted: RunAccepted = { code: 200, message: 'Task accepted.', task_id: taskId, status: 'waiting' };
          if (key !== undefined && hash !== null && !(await tx.idempotency.save(auth.userId, key, hash, { ...accepted }))) {
            throw new IdempotencyRace();
          }
          this.logger.info({ taskId, modelId: model.id, userId: auth.userId, quotedMicro: quote.chargeMicro, admitted }, 'task accepted');
          return accepted;
        });
      } catch (err) {
        // Another request with the same key committed first: this one rolled back; answer from its record.
        if (err instanceof IdempotencyRace && attempt === 0) continue;
        throw err;
      }
    }
  }
}

class IdempotencyRace extends Error {}

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

function replay(earlier: { requestHash: string; response: JsonObject }, hash: string): RunAccepted {
  if (earlier.requestHash !== hash) {
    throw new GatewayError('conflict', 'This Idempotency-Key was already used with a different request.', { param: 'Idempotency-Key' });
  }
  const r = earlier.response;
  return { code: 200, message: String(r['message']), task_id: String(r['task_id']), status: 'waiting' };
}
