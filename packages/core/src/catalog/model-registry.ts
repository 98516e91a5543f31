import { GatewayError } from '../errors/gateway-error.js';
import type { ModelDescriptor } from '../model/model.js';
import { ADAPTER_SPECIFICATION_VERSION, type ProviderAdapter } from '../ports/provider-adapter.js';

const MODEL_ID = /^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9._-]*$/;

/** The catalog: every model of every registered adapter, and the adapter that serves it. */
export class ModelRegistry {
  private readonly byId = new Map<string, { model: ModelDescriptor; adapter: ProviderAdapter }>();

  constructor(adapters: readonly ProviderAdapter[]) {
    for (const adapter of adapters) this.register(adapter);
  }

  register(adapter: ProviderAdapter): void {
    if (adapter.specificationVersion !== ADAPTER_SPECIFICATION_VERSION) {
      throw new Error(`adapter ${adapter.providerId} implements ${String(adapter.specificationVersion)}, expected ${ADAPTER_SPECIFICATION_VERSION}`);
    }
    for (const model of adapter.models) {
      if (!MODEL_ID.test(model.id)) throw new Error(`model id ${model.id} is not of the form <category>.<model_name>`);
      if (this.byId.has(model.id)) throw new Error(`model id ${model.id} is registered twice`);
      if (model.capabilities.modality !== model.modality) throw new Error(`model ${model.id}: capabilities do not match its modality`);
      const longRunning = adapter.isLongRunning(model.id);
      if (longRunning ? !(adapter.start && adapter.status) : !adapter.generate) {
        throw new Error(`adapter ${adapter.providerId} lacks the ${longRunning ? 'start/status' : 'generate'} method for ${model.id}`);
      }
      this.byId.set(model.id, { model, adapter });
    }
  }

  all(): readonly ModelDescriptor[] {
    return [...this.byId.values()].map((e) => e.model);
  }

  find(modelId: string): ModelDescriptor | null {
    return this.byId.get(modelId)?.model ?? null;
  }

  /** The model, or a 404 when it is unknown or inactive. */
  requireActive(modelId: string): ModelDescriptor {
    const model = this.find(modelId);
    if (!model) throw new GatewayError('model_not_found', `No model with id '${modelId}'. List models with GET /api/v1/models.`, { param: 'model_id' });
    if (!model.isActive) throw new GatewayError('model_inactive', `Model '${modelId}' is not active.`, { param: 'model_id' });
    return model;
  }

  adapterFor(modelId: string): ProviderAdapter {
    const entry = this.byId.get(modelId);
    if (!entry) throw new Error(`no adapter serves ${modelId}`);
    return entry.adapter;
  }
}
