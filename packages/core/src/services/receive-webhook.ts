import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { ModelRegistry } from '../catalog/model-registry.js';
import { GatewayError } from '../errors/gateway-error.js';
import { WebhookRejected, WebhookUnverifiable, type AdapterCall, type WebhookRequest } from '../ports/provider-adapter.js';
import type { Logger } from '../ports/system.js';
import type { TaskStore, UnitOfWork } from '../ports/stores.js';
import { normalizeRunRequest } from '../run/normalize-request.js';
import type { JsonValue } from '../util/json.js';
import { isUuid } from '../util/uuid.js';

/** Rolls the webhook's transaction back: the task moved to another upstream job meanwhile. */
class StaleWebhook extends Error {}

export interface WebhookReceipt {
  received: true;
  /** Whether it moved a task on; otherwise why not (unknown task, already ended, another job, not a completion). */
  applied: boolean;
  reason: string | null;
}

/**
 * POST /providers/{provider}/webhook?task=<id>: an upstream says a long-running job ended. The signature
 * is verified as the provider documents it (a forged one is a 400 and changes nothing); a verified
 * completion of the task's current upstream job is kept on the task and its status check runs at once,
 * reading the webhook instead of asking the upstream. Anything else is acknowledged and ignored, so a
 * webhook for an unknown or ended task, or delivered twice (even twice at once), changes nothing (and
 * charges once): the completion is kept once per upstream job (compare-and-set on the stored payload) and
 * its check follows the task's latest one (compare-and-set on the sequence), so a check that was under way
 * when it landed schedules nothing more (see TaskResultWriter for two checks completing at once).
 */
@injectable()
export class ReceiveWebhook {
  constructor(
    @inject(ModelRegistry) private readonly registry: ModelRegistry,
    @inject(TOKENS.TaskStore) private readonly tasks: TaskStore,
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  async execute(providerId: string, taskId: string | null, request: WebhookRequest): Promise<WebhookReceipt> {
    // Admission, before any network call or database statement: a provider that sends no webhooks or is
    // not configured here is a 404 (the same answer for both, so the route does not tell which providers
    // are configured); the adapter then refuses missing signature headers before fetching any key.
    const adapter = this.registry.adapters().find((a) => a.providerId === providerId);
    if (!adapter?.verifyWebhook || !adapter.readWebhook || !adapter.jobIdOf || adapter.availability?.available === false) {
      throw new GatewayError('not_found', `Provider ${providerId} sends no webhooks to this gateway.`, { param: 'provider' });
    }
    try {
      await adapter.verifyWebhook(request, AbortSignal.timeout(10_000));
    } catch (err) {
      if (err instanceof WebhookRejected) throw new GatewayError('invalid_request', `Webhook rejected: ${err.message}`, { param: 'signature' });
      if (err instanceof WebhookUnverifiable) {
        throw new GatewayError('service_unavailable', `The webhook cannot be verified now: ${err.message}.`, {
          headers: { 'Retry-After': String(err.retryAfterSeconds) },
        });
      }
      throw err;
    }
    let payload: JsonValue;
    try {
      payload = JSON.parse(new TextDecoder().decode(request.rawBody)) as JsonValue;
    } catch {
      throw new GatewayError('invalid_json', 'The webhook body is not valid JSON.');
    }
    const ignored = (reason: string): WebhookReceipt => {
      this.logger.info({ providerId, taskId, reason }, 'provider webhook ignored');
      return { received: true, applied: false, reason };
    };
    const task = taskId !== null && isUuid(taskId) ? await this.tasks.findById(taskId.toLowerCase()) : null;
    // The route the task's upstream job runs on (a routed model's task names its route).
    const model = task ? this.registry.find(task.routeId ?? task.modelId) : null;
    if (!task || !model || model.provider !== providerId) return ignored('unknown task');
    if (task.status !== 'generating' || task.upstreamHandle === null) return ignored(`task is ${task.status}`);
    const call: AdapterCall = {
      taskId: task.id,
      model,
      request: normalizeRunRequest(model, task.request),
      abortSignal: AbortSignal.timeout(10_000),
      readInput: () => Promise.reject(new Error('no inputs are read for a webhook')),
      webhookUrl: null,
    };
    const event = adapter.readWebhook(payload, call);
    if (!event) return ignored('not a completion event');
    if (adapter.jobIdOf(task.upstreamHandle) !== event.jobId) return ignored('another upstream job');
    const jobIdOf = adapter.jobIdOf.bind(adapter);
    const outcome = await this.uow
      .run(async (tx): Promise<string | null> => {
        // Compare-and-set on the stored completion: of two deliveries at once, one keeps its payload.
        if (!(await tx.tasks.saveWebhookPayload(task.id, payload))) {
          const now = await tx.tasks.findById(task.id);
          return now?.status === 'generating' ? 'completion already received' : `task is ${now?.status ?? 'gone'}`;
        }
        // Read under the row lock the write above took: the latest sequence and upstream job.
        const now = await tx.tasks.findById(task.id);
        if (!now || now.upstreamHandle === null || jobIdOf(now.upstreamHandle) !== event.jobId) throw new StaleWebhook();
        // Compare-and-set on the sequence: the check in flight (if any) becomes stale, this one is next.
        if (!(await tx.tasks.advanceCheck(task.id, now.pollSeq, null))) throw new StaleWebhook();
        await tx.jobs.enqueueStatusCheck(task.id, { checkNumber: now.pollSeq + 1, startAfterMs: 0, providerId });
        return null;
      })
      .catch((err: unknown) => {
        if (err instanceof StaleWebhook) return 'another upstream job';
        throw err;
      });
    if (outcome !== null) return ignored(outcome);
    this.logger.info({ providerId, taskId: task.id, jobId: event.jobId, state: event.status.state }, 'provider webhook applied');
    return { received: true, applied: true, reason: null };
  }
}
