import type { ModelDescriptor } from '../model/model.js';
import type { RoutedModelDeclaration } from '../model/routing.js';

/** The provider name a routed model is listed under (its routes' providers are listed with it). */
export const ROUTED_PROVIDER = 'routed';

/**
 * The catalog entry of a routed model: its own id, name and description; the modality, capabilities, prices
 * and provider parameters shown are its first route's (each route still checks a request against its own
 * before it becomes a candidate, and each is quoted at its own price).
 */
export function routedDescriptor(declaration: RoutedModelDeclaration, routes: readonly ModelDescriptor[]): ModelDescriptor {
  const first = routes[0];
  if (!first) throw new Error(`routed model ${declaration.id} has no route`);
  for (const r of routes) {
    if (r.modality !== first.modality) throw new Error(`routed model ${declaration.id}: route ${r.id} is a ${r.modality} model, ${first.id} a ${first.modality} one`);
  }
  if (new Set(routes.map((r) => r.id)).size !== routes.length) throw new Error(`routed model ${declaration.id} names a route twice`);
  return {
    id: declaration.id,
    name: declaration.name,
    provider: ROUTED_PROVIDER,
    modality: first.modality,
    description: declaration.description ?? `${declaration.name}, routed over ${routes.map((r) => r.provider).join(', ')}.`,
    tags: declaration.tags ?? [...new Set(routes.flatMap((r) => r.tags))],
    isPopular: routes.some((r) => r.isPopular),
    isActive: true,
    capabilities: first.capabilities,
    pricing: first.pricing,
    ...(first.providerParams ? { providerParams: first.providerParams } : {}),
    ...(first.pollIntervalSeconds !== undefined ? { pollIntervalSeconds: first.pollIntervalSeconds } : {}),
  };
}
