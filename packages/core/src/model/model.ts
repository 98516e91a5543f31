import type { z } from 'zod';
import type { ModelCapabilities } from './capabilities.js';
import type { Modality } from './modality.js';
import type { ModelPricing, PriceSource } from './pricing.js';
import type { JsonValue } from '../util/json.js';

/**
 * What a provider-parameter schema reads and produces: a JSON object whose optional keys may read as
 * undefined (zod types `.optional()` keys as `?: T | undefined`, which an adapter author's
 * `exactOptionalPropertyTypes` would otherwise refuse). The normalized request drops undefined keys.
 */
export type ProviderParamsObject = { readonly [key: string]: JsonValue | undefined };

/** A strict zod object schema for a model's `provider_params` (its own parameters beyond the generic ones). */
export type ProviderParamsSchema = z.ZodType<ProviderParamsObject, ProviderParamsObject>;

/** A catalog entry as an adapter declares it. `id` is `<category>.<model_name>`. */
export interface ModelDescriptor {
  readonly id: string;
  readonly name: string;
  readonly provider: string;
  readonly modality: Modality;
  readonly description: string;
  readonly tags: readonly string[];
  readonly isPopular: boolean;
  readonly isActive: boolean;
  readonly capabilities: ModelCapabilities;
  /** Upstream cost as data (micro-USD); the user's price is this times the operator's markup. */
  readonly pricing: ModelPricing;
  /** The provider's price page and the date the prices were taken from it. */
  readonly priceSource?: PriceSource;
  /**
   * What this model accepts in `provider_params`, validated strictly before any credit is held (use
   * `z.strictObject`); defaults declared here are applied. Absent: the model takes no provider parameters.
   */
  readonly providerParams?: ProviderParamsSchema;
  /** Recommended polling interval for clients, in seconds. */
  readonly pollIntervalSeconds?: number;
}

/** The public Model resource of the interface document. */
export interface ModelView {
  id: string;
  name: string;
  provider: string;
  modality: Modality;
  description: string;
  tags: string[];
  is_popular: boolean;
  is_active: boolean;
  /** gengate extension, routed models only: the provider models that serve it. */
  routes?: ModelRouteView[];
  /** gengate extension, routed models only: the lowest and highest default-task quote among the active routes. */
  price_range?: { min_credits: number | null; max_credits: number | null };
}

/** One route of a routed model, as GET /models lists it. */
export interface ModelRouteView {
  id: string;
  provider: string;
  is_active: boolean;
  /** The quote of a task with the model's default parameters on this route, in credits (null when it needs more than a prompt to quote). */
  default_task_credits: number | null;
}

export function toModelView(m: ModelDescriptor, active: boolean = m.isActive): ModelView {
  return {
    id: m.id,
    name: m.name,
    provider: m.provider,
    modality: m.modality,
    description: m.description,
    tags: [...m.tags],
    is_popular: m.isPopular,
    is_active: active,
  };
}
