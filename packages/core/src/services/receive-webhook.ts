import type { ModelRegistry } from '../catalog/model-registry.js';
import { GatewayError } from '../errors/gateway-error.js';
import { WebhookRejected, WebhookUnverifiable, type AdapterCall, type WebhookRequest } from '../ports/provider-adapter.js';
import type { Logger } from '../ports/system.js';
import type { TaskStore, UnitOfWork } from '../ports/stores.js';
import { normalizeRunRequest } from '../run/normalize-request.js';
import type { JsonValue } from '../util/json.js';
import { isUuid } from '../util/uuid.js';

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
 * webhook for an unknown or ended task, or delivered twice, changes nothing (and charges once).
 */
export class ReceiveWebhook {
  constructor(
    private readonly registry: ModelRegistry,
    private readonly tasks: TaskStore,
    private readonly uow: UnitOfWork,
    private readonly logger: Logger,
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
    const model = task ? this.registry.find(task.modelId) : null;
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
    const next = task.pollSeq + 1;
    const applied = await this.uow.run(async (tx) => {
      if (!(await tx.tasks.saveWebhookPayload(task.id, payload))) return false;
      if (!(await tx.tasks.setNextCheck(task.id, next, null))) return false;
      await tx.jobs.enqueueStatusCheck(task.id, { checkNumber: next, startAfterMs: 0, providerId });
      return true;
    });
    if (!applied) return ignored('task ended meanwhile');
    this.logger.info({ providerId, taskId: task.id, jobId: event.jobId, state: event.status.state }, 'provider webhook applied');
    return { received: true, applied: true, reason: null };
  }
}
