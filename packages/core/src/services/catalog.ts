import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import type { ModelRegistry } from '../catalog/model-registry.js';
import { modalitySchema } from '../model/modality.js';
import { toModelView, type ModelView } from '../model/model.js';
import { toPricingView, type PricingView } from '../pricing/pricing-view.js';
import { pageQuerySchema } from './pagination.js';

export const listModelsQuerySchema = pageQuerySchema.extend({
  task: z.union([modalitySchema, z.array(modalitySchema)]).optional(),
  provider: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
  search: z.string().max(200).optional(),
});

export interface ModelListView {
  data: ModelView[];
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

function asList<T>(v: T | T[] | undefined): T[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** Model catalog and pricing queries. */
export class CatalogService {
  constructor(private readonly registry: ModelRegistry) {}

  list(rawQuery: unknown): ModelListView {
    const parsed = listModelsQuerySchema.safeParse(rawQuery);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const q = parsed.data;
    const tasks = asList(q.task);
    const providers = asList(q.provider).map((p) => p.toLowerCase());
    const terms = (q.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const matches = this.registry
      .all()
      .filter((m) => m.isActive)
      .filter((m) => tasks.length === 0 || tasks.includes(m.modality))
      .filter((m) => providers.length === 0 || providers.includes(m.provider.toLowerCase()))
      .filter((m) => {
        const text = `${m.name} ${m.description} ${m.id}`.toLowerCase();
        return terms.every((t) => text.includes(t));
      })
      .sort((a, b) => a.id.localeCompare(b.id));
    const start = (q.page - 1) * q.per_page;
    return {
      data: matches.slice(start, start + q.per_page).map(toModelView),
      page: q.page,
      per_page: q.per_page,
      total: matches.length,
      total_pages: Math.ceil(matches.length / q.per_page),
    };
  }

  get(modelId: string): ModelView {
    const model = this.registry.find(modelId);
    if (!model) throw new GatewayError('model_not_found', `No model with id '${modelId}'.`, { param: 'model_id' });
    return toModelView(model);
  }

  popular(): { data: ModelView[] } {
    return { data: this.registry.all().filter((m) => m.isActive && m.isPopular).map(toModelView) };
  }

  pricing(modelId: string): PricingView {
    const model = this.registry.find(modelId);
    if (!model) throw new GatewayError('model_not_found', `No model with id '${modelId}'.`, { param: 'model_id' });
    return toPricingView(model);
  }

  allPricing(): { data: PricingView[] } {
    return { data: this.registry.all().filter((m) => m.isActive).sort((a, b) => a.id.localeCompare(b.id)).map(toPricingView) };
  }
}
