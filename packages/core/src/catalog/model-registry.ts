import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ModelDescriptor } from '../model/model.js';
import { adaptAcceptedAdapter, type AcceptedProviderAdapter, type AdapterAvailability, type ProviderAdapter } from '../ports/provider-adapter.js';
import type { ModelRoutingPolicy, RoutedModelDeclaration } from '../model/routing.js';
import { checkModelDeclaration } from './model-declaration.js';
import { routedDescriptor } from './routed-model.js';

const AVAILABLE: AdapterAvailability = { available: true };

/**
 * The catalog: every model of every registered adapter, the adapter that serves it, and whether it can run;
 * and the routed models, whose routes are provider models of the catalog (see `routesOf`).
 */
@injectable()
export class ModelRegistry {
  private readonly byId = new Map<string, { model: ModelDescriptor; adapter: ProviderAdapter }>();
  private readonly routed = new Map<string, { model: ModelDescriptor; declaration: RoutedModelDeclaration; routes: readonly ModelDescriptor[] }>();

  constructor(
    @inject(TOKENS.Adapters) adapters: readonly AcceptedProviderAdapter[],
    @inject(TOKENS.RoutedModels) routedModels: readonly RoutedModelDeclaration[] = [],
  ) {
    for (const adapter of adapters) this.register(adapter);
    for (const declaration of routedModels) this.registerRouted(declaration);
  }

  /**
   * Registers a routed model over provider models already registered. A declaration whose id is taken, or
   * whose routes are unknown, routed themselves or of mixed modalities, is a start-up error.
   */
  registerRouted(declaration: RoutedModelDeclaration): void {
    if (this.byId.has(declaration.id) || this.routed.has(declaration.id)) throw new Error(`model id ${declaration.id} is registered twice`);
    const routes = declaration.routes.map((id) => {
      const entry = this.byId.get(id);
      if (!entry) throw new Error(`routed model ${declaration.id}: route ${id} is not a provider model of the catalog`);
      return entry.model;
    });
    this.routed.set(declaration.id, { model: routedDescriptor(declaration, routes), declaration, routes });
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
    return [...[...this.byId.values()].map((e) => e.model), ...[...this.routed.values()].map((e) => e.model)];
  }

  /** The routes of a model: a routed model's provider models in declared order; a provider model is its own one route. */
  routesOf(modelId: string): readonly ModelDescriptor[] {
    const routed = this.routed.get(modelId);
    if (routed) return routed.routes;
    const entry = this.byId.get(modelId);
    return entry ? [entry.model] : [];
  }

  /** Whether the id is a routed model (as opposed to a provider model). */
  isRouted(modelId: string): boolean {
    return this.routed.has(modelId);
  }

  /** The operator's policy of a routed model (a provider model has none). */
  routingPolicyOf(modelId: string): ModelRoutingPolicy | undefined {
    return this.routed.get(modelId)?.declaration.policy;
  }

  adapters(): readonly ProviderAdapter[] {
    return [...new Set([...this.byId.values()].map((e) => e.adapter))];
  }

  find(modelId: string): ModelDescriptor | null {
    return this.byId.get(modelId)?.model ?? this.routed.get(modelId)?.model ?? null;
  }

  /** A routed model is available while one of its routes is (active, its provider configured). */
  availabilityOf(modelId: string): AdapterAvailability {
    const routed = this.routed.get(modelId);
    if (!routed) return this.byId.get(modelId)?.adapter.availability ?? AVAILABLE;
    if (routed.routes.some((r) => this.isActive(r))) return AVAILABLE;
    return { available: false, settings: [], reason: `no route of ${modelId} is available (${routed.routes.map((r) => r.id).join(', ')}: inactive or provider not configured).` };
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

  /** The adapter of a provider model (a route). A routed model has none of its own: ask for one of its `routesOf`. */
  adapterFor(modelId: string): ProviderAdapter {
    const entry = this.byId.get(modelId) ?? this.byId.get(this.routed.get(modelId)?.routes[0]?.id ?? '');
    if (!entry) throw new Error(`no adapter serves ${modelId}`);
    return entry.adapter;
  }
}
