import type { ModelRegistry } from '../catalog/model-registry.js';
import { GatewayError } from '../errors/gateway-error.js';
import { quoteRun } from '../pricing/quote.js';
import type { IdGenerator, Logger } from '../ports/system.js';
import type { UnitOfWork } from '../ports/stores.js';
import { normalizeRunRequest } from '../run/normalize-request.js';
import { runRequestSchema } from '../run/run-request.schema.js';
import type { AuthContext } from './auth-context.js';

export interface RunAccepted {
  code: 200;
  message: string;
  task_id: string;
  status: 'waiting';
}

/**
 * POST /run/{model_id}: validate against the model, quote, then in ONE transaction hold the credits,
 * insert the task as waiting and enqueue its job. Any refusal happens before a write.
 */
export class SubmitRun {
  constructor(
    private readonly registry: ModelRegistry,
    private readonly uow: UnitOfWork,
    private readonly ids: IdGenerator,
    private readonly logger: Logger,
  ) {}

  async execute(auth: AuthContext, modelId: string, body: unknown): Promise<RunAccepted> {
    const model = this.registry.requireActive(modelId);
    const parsed = runRequestSchema.safeParse(body);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const request = parsed.data;
    const normalized = normalizeRunRequest(model, request);
    const quotedMicro = quoteRun(model, normalized);
    const taskId = this.ids.uuid();
    await this.uow.run(async (tx) => {
      // A key revoked while this request was in flight fails it here, before anything commits.
      if (!(await tx.keys.lockActive(auth.apiKeyId))) {
        throw new GatewayError('authentication_failed', 'The API key was revoked while the request was in flight.');
      }
      await tx.ledger.hold(auth.userId, taskId, quotedMicro);
      await tx.tasks.insert({
        id: taskId,
        userId: auth.userId,
        apiKeyId: auth.apiKeyId,
        modelId: model.id,
        modality: model.modality,
        request,
        callbackUrl: request.callback_url ?? null,
        quotedMicro,
      });
      await tx.jobs.enqueueGeneration(taskId);
    });
    this.logger.info({ taskId, modelId: model.id, userId: auth.userId, quotedMicro }, 'task accepted');
    return { code: 200, message: 'Task accepted.', task_id: taskId, status: 'waiting' };
  }
}
