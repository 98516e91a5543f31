import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ModelDescriptor } from '../model/model.js';
import { adaptAcceptedAdapter, type AcceptedProviderAdapter, type AdapterAvailability, type ProviderAdapter } from '../ports/provider-adapter.js';
import { checkModelDeclaration } from './model-declaration.js';

const AVAILABLE: AdapterAvailability = { available: true };

/** The catalog: every model of every registered adapter, the adapter that serves it, and whether it can run. */
@injectable()
export class ModelRegistry {
  private readonly byId = new Map<string, { model: ModelDescriptor; adapter: ProviderAdapter }>();

  constructor(@inject(TOKENS.Adapters) adapters: readonly AcceptedProviderAdapter[]) {
    for (const adapter of adapters) this.register(adapter);
  }

  /** Registers an adapter of an accepted contract version (a v3 one is adapted to v4 here, for one release). */
  register(accepted: AcceptedProviderAdapter): void {
    const adapter = adaptAcceptedAdapter(accepted);
    for (const model of adapter.models) {
      if (this.byId.has(model.id)) throw new Error(`model id ${model.id} is registered twice`);
      checkModelDeclaration(model);
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

  adapters(): readonly ProviderAdapter[] {
    return [...new Set([...this.byId.values()].map((e) => e.adapter))];
  }

  find(modelId: string): ModelDescriptor | null {
    return this.byId.get(modelId)?.model ?? null;
  }

  availabilityOf(modelId: string): AdapterAvailability {
    return this.byId.get(modelId)?.adapter.availability ?? AVAILABLE;
  }

  /** Active: declared active and its provider configured. Inactive models stay listed with is_active false. */
  isActive(model: ModelDescriptor): boolean {
    return model.isActive && this.availabilityOf(model.id).available;
  }

  /** The model, or a 4xx when it is unknown (404), switched off (404) or its provider is not configured (422, naming the setting). */
  requireRunnable(modelId: string): ModelDescriptor {
    const model = this.find(modelId);
    if (!model) throw new GatewayError('model_not_found', `No model with id '${modelId}'. List models with GET /api/v1/models.`, { param: 'model_id' });
    if (!model.isActive) throw new GatewayError('model_inactive', `Model '${modelId}' is not active.`, { param: 'model_id' });
    const availability = this.availabilityOf(model.id);
    if (!availability.available) {
      throw new GatewayError('provider_not_configured', `Model '${modelId}' cannot run: ${availability.reason}`, { param: 'model_id' });
    }
    return model;
  }

  /** @deprecated use requireRunnable */
  requireActive(modelId: string): ModelDescriptor {
    return this.requireRunnable(modelId);
  }

  adapterFor(modelId: string): ProviderAdapter {
    const entry = this.byId.get(modelId);
    if (!entry) throw new Error(`no adapter serves ${modelId}`);
    return entry.adapter;
  }
}
