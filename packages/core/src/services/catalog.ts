import { inject, injectable } from 'inversify';
import { TOKENS } from '../ports/tokens.js';
import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import { ModelRegistry } from '../catalog/model-registry.js';
import type { ModelCapabilities } from '../model/capabilities.js';
import { modalitySchema } from '../model/modality.js';
import { toModelView, type ModelDescriptor, type ModelRouteView, type ModelView } from '../model/model.js';
import { normalizeRunRequest } from '../run/normalize-request.js';
import { microToCredits } from '../util/money.js';
import { PriceBook } from '../pricing/price-book.js';
import type { PricingView } from '../pricing/pricing-view.js';
import { modelParametersJsonSchema } from '../run/model-request-schema.js';
import { pageQuerySchema } from './pagination.js';

export const listModelsQuerySchema = pageQuerySchema.extend({
  task: z.union([modalitySchema, z.array(modalitySchema)]).optional(),
  provider: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
  search: z.string().max(200).optional(),
  /** gengate extension: only active (true) or only inactive (false) models; default both. */
  active: z.enum(['true', 'false']).optional(),
});

export interface ModelListView {
  data: ModelView[];
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

/** GET /models/{id}: the Model resource plus gengate's extension fields. */
export interface ModelDetailView extends ModelView {
  /** Why the model cannot run now (e.g. its provider is not configured), else null. */
  inactive_reason: string | null;
  /** What the model accepts, as data (durations, resolutions, sizes, token limits...). */
  capabilities: ModelCapabilities;
  /** JSON Schema (2020-12) of the run body this model accepts, provider_params included. */
  parameters: Record<string, unknown>;
  /** Recommended polling interval, in seconds. */
  poll_interval_seconds: number;
}

function asList<T>(v: T | T[] | undefined): T[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

const DEFAULT_POLL_SECONDS = { chat: 1, image: 3, video: 3 } as const;

/** Model catalog and pricing queries. */
@injectable()
export class CatalogService {
  constructor(
    @inject(ModelRegistry) private readonly registry: ModelRegistry,
    @inject(PriceBook) private readonly prices: PriceBook,
  ) {}

  private view(m: ModelDescriptor): ModelView {
    const view = toModelView(m, this.registry.isActive(m));
    if (!this.registry.isRouted(m.id)) return view;
    const routes: ModelRouteView[] = this.registry.routesOf(m.id).map((r) => ({
      id: r.id,
      provider: r.provider,
      is_active: this.registry.isActive(r),
      default_task_credits: this.defaultTaskCredits(r),
    }));
    const active = routes.filter((r) => r.is_active && r.default_task_credits !== null).map((r) => r.default_task_credits as number);
    return { ...view, routes, price_range: { min_credits: active.length > 0 ? Math.min(...active) : null, max_credits: active.length > 0 ? Math.max(...active) : null } };
  }

  /** The quote of a task with only a prompt (the route's defaults for the rest), in credits; null when the route needs more. */
  private defaultTaskCredits(route: ModelDescriptor): number | null {
    try {
      return microToCredits(this.prices.quote(route, normalizeRunRequest(route, { prompt: 'x' })).chargeMicro);
    } catch {
      return null;
    }
  }

  /** Every model, active or not (inactive ones show `is_active: false`), sorted by id. */
  list(rawQuery: unknown): ModelListView {
    const parsed = listModelsQuerySchema.safeParse(rawQuery);
    if (!parsed.success) throw GatewayError.fromZod(parsed.error);
    const q = parsed.data;
    const tasks = asList(q.task);
    const providers = asList(q.provider).map((p) => p.toLowerCase());
    const terms = (q.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const matches = this.registry
      .all()
      .filter((m) => q.active === undefined || this.registry.isActive(m) === (q.active === 'true'))
      .filter((m) => tasks.length === 0 || tasks.includes(m.modality))
      .filter((m) => providers.length === 0 || providers.includes(m.provider.toLowerCase()))
      .filter((m) => {
        const text = `${m.name} ${m.description} ${m.id}`.toLowerCase();
        return terms.every((t) => text.includes(t));
      })
      .sort((a, b) => a.id.localeCompare(b.id));
    const start = (q.page - 1) * q.per_page;
    return {
      data: matches.slice(start, start + q.per_page).map((m) => this.view(m)),
      page: q.page,
      per_page: q.per_page,
      total: matches.length,
      total_pages: Math.ceil(matches.length / q.per_page),
    };
  }

  private require(modelId: string): ModelDescriptor {
    const model = this.registry.find(modelId);
    if (!model) throw new GatewayError('model_not_found', `No model with id '${modelId}'.`, { param: 'model_id' });
    return model;
  }

  get(modelId: string): ModelDetailView {
    const model = this.require(modelId);
    const availability = this.registry.availabilityOf(model.id);
    return {
      ...this.view(model),
      inactive_reason: !model.isActive ? 'The operator switched this model off.' : availability.available ? null : availability.reason,
      capabilities: model.capabilities,
      parameters: modelParametersJsonSchema(model),
      poll_interval_seconds: model.pollIntervalSeconds ?? DEFAULT_POLL_SECONDS[model.modality],
    };
  }

  popular(): { data: ModelView[] } {
    return { data: this.registry.all().filter((m) => this.registry.isActive(m) && m.isPopular).map((m) => this.view(m)) };
  }

  pricing(modelId: string): PricingView {
    return this.prices.view(this.require(modelId));
  }

  allPricing(): { data: PricingView[] } {
    return {
      data: this.registry
        .all()
        .filter((m) => this.registry.isActive(m))
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((m) => this.prices.view(m)),
    };
  }
}
