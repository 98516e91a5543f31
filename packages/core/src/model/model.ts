import type { ModelCapabilities } from './capabilities.js';
import type { Modality } from './modality.js';
import type { ModelPricing } from './pricing.js';

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
  readonly pricing: ModelPricing;
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
}

export function toModelView(m: ModelDescriptor): ModelView {
  return {
    id: m.id,
    name: m.name,
    provider: m.provider,
    modality: m.modality,
    description: m.description,
    tags: [...m.tags],
    is_popular: m.isPopular,
    is_active: m.isActive,
  };
}
