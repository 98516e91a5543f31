import { GatewayError } from '../errors/gateway-error.js';
import type { KeyRefusal } from '../model/api-key.js';
import { microToCredits } from '../util/money.js';

const list = (allowed: readonly string[]) => allowed.join(', ');

/** The client's error for a key refusal: each names the key's limit and how to get past it. */
export function keyRefusalError(r: KeyRefusal, subject: { modelId: string; provider: string; modality: string }): GatewayError {
  switch (r.outcome) {
    case 'model_not_allowed':
      return new GatewayError('model_not_allowed_for_key', `This API key may only run the models ${list(r.allowed)} (its allowed_models); '${subject.modelId}' is not one. Nothing was held.`, {
        param: 'model_id',
      });
    case 'provider_not_allowed':
      return new GatewayError(
        'provider_not_allowed_for_key',
        `This API key may only use the providers ${list(r.allowed)} (its allowed_providers); '${subject.modelId}' runs on '${subject.provider}'. Nothing was held.`,
        { param: 'model_id' },
      );
    case 'modality_not_allowed':
      return new GatewayError(
        'modality_not_allowed_for_key',
        `This API key may only run ${list(r.allowed)} models (its allowed_modalities); '${subject.modelId}' is a ${subject.modality} model. Nothing was held.`,
        { param: 'model_id' },
      );
    case 'key_concurrency_exceeded':
      return new GatewayError(
        'key_concurrency_exceeded',
        `This API key already has ${r.limit} tasks waiting or generating, its max_concurrent_tasks; submit again when one has ended. Nothing was held.`,
        { headers: { 'Retry-After': '5' } },
      );
    case 'key_budget_exceeded': {
      const resets = r.resetsAt ? `; its period starts again at ${r.resetsAt.toISOString()}` : '; its budget never resets (budget_period none): raise spend_limit';
      return new GatewayError(
        'key_budget_exceeded',
        `This API key has spent ${microToCredits(r.spentMicro)} of its ${microToCredits(r.limitMicro)} credit spend_limit this period and the quote does not fit${resets}. Nothing was held.`,
        { resetsAt: r.resetsAt },
      );
    }
  }
}
