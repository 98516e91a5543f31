import { GatewayError, requestRoutingSchema, type RequestRouting, type RouteCandidate } from '@gengate/core';

/**
 * OpenRouter's request-level routing fields (https://openrouter.ai/docs/features/provider-routing and
 * model-routing): `models` (fallback model ids) and `provider` (the policy object), taken at the top of every
 * `/v1` dialect's body (chat completions, messages, responses, images, videos) with core's one schema.
 */
export const ROUTING_FIELDS = { models: requestRoutingSchema.shape.models, provider: requestRoutingSchema.shape.provider };

/** The routing fields of a parsed dialect body, as the run body takes them (absent fields left out). */
export function routingOf(body: Partial<RequestRouting>): RequestRouting {
  return { ...(body.models !== undefined ? { models: body.models } : {}), ...(body.provider !== undefined ? { provider: body.provider } : {}) };
}

/**
 * What a `/v1` answer reports of the route that served it, as OpenRouter does: `model` is the model that
 * answered (the requested one, or the fallback of `models` that served), `provider` the provider of the
 * route that answered. Without an answering route: the requested model, no provider.
 */
export function servedBy(requested: string, route: RouteCandidate | null): { readonly model: string; readonly provider: string | null } {
  return route ? { model: route.servedModelId, provider: route.providerId } : { model: requested, provider: null };
}

/**
 * The model and provider that served a task run through the queue (a `/v1/videos` job), from the route it
 * recorded: the requested model when the route is one of its own, else the fallback of `models` it belongs to.
 */
export function servedByTask(
  registry: { routesOf(id: string): readonly { readonly id: string; readonly provider: string }[] },
  task: { readonly modelId: string; readonly routeId?: string | null; readonly request: { readonly models?: readonly string[] } },
): { readonly model: string; readonly provider: string | null } {
  const routeId = task.routeId ?? null;
  if (routeId === null) return { model: task.modelId, provider: null };
  for (const id of [task.modelId, ...(task.request.models ?? [])]) {
    const route = registry.routesOf(id).find((r) => r.id === routeId);
    if (route) return { model: id, provider: route.provider };
  }
  return { model: task.modelId, provider: null };
}

/** A routing field of a multipart form (`/v1/videos`): JSON text (what a JSON body's objects become), or for `models` a comma-separated list. */
export function routingOfForm(form: Readonly<Record<string, string>>): RequestRouting {
  const out: Record<string, unknown> = {};
  const models = form['models'];
  if (models !== undefined) out['models'] = models.trim().startsWith('[') ? parseJson(models) : models.split(',').map((m) => m.trim()).filter(Boolean);
  const provider = form['provider'];
  if (provider !== undefined) out['provider'] = parseJson(provider);
  const parsed = requestRoutingSchema.safeParse(out);
  if (!parsed.success) throw GatewayError.fromZod(parsed.error);
  return parsed.data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
